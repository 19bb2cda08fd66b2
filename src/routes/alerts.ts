/**
 * `GET /api/v1/sensor/alerts`: the alert log as the spec's alert rules describe it. The cursor
 * filter and the summary form are in src/alerts/alert-query.ts; this plugin only wires them.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ALERT_MODES, parseAlertQuery, renderAlerts } from '../alerts/index.js';
import { cachedJsonBytes, sendCachedJson } from './http/cached-json.js';
import { documentedAs, Json, problems } from './api-schemas.js';

/** 0 … 4294967295 written in decimal (leading zeros allowed), as a regular expression. */
const U32_DECIMAL_PATTERN =
  '^(?=[0-9]{1,10}$)0*([0-9]{1,9}|[1-3][0-9]{9}|4[01][0-9]{8}|42[0-8][0-9]{7}|429[0-3][0-9]{6}|4294[0-8][0-9]{5}|' +
  '42949[0-5][0-9]{4}|429496[0-6][0-9]{3}|4294967[01][0-9]{2}|42949672[0-8][0-9]|429496729[0-5])$';

// Values are checked by parseAlertQuery, which names the valid range in its message; the schema
// rejects unknown parameters and repeated ones (an array instead of a string).
const AlertsQuerySchema = Type.Object(
  {
    cursor: Type.Optional(
      documentedAs(
        Type.String({
          description: 'Only entries after this cursor (next_cursor of an earlier answer)',
          examples: ['0'],
        }),
        Type.String({ pattern: U32_DECIMAL_PATTERN, description: 'an integer from 0 to 4294967295, in decimal' }),
      ),
    ),
    mode: Type.Optional(
      documentedAs(
        Type.String({ description: '"summary": entries without messages', examples: ['summary'] }),
        Type.String({ enum: [...ALERT_MODES] }),
      ),
    ),
  },
  { additionalProperties: false },
);

const Cursor = Type.Integer({ minimum: 0, maximum: 0xffffffff });
const Realtime = Type.String({ pattern: '^[0-9]+$', description: 'ns since the Unix epoch, system realtime clock' });
const Level = Type.String({ enum: ['NOTICE', 'WARNING', 'ERROR'] });
const FullEntry = Type.Object({
  category: Type.String(),
  level: Level,
  realtime: Realtime,
  active: Type.Boolean(),
  msg: Type.String(),
  cursor: Cursor,
  id: Type.String(),
  msg_verbose: Type.String(),
});
const ActiveSummary = Type.Object({ cursor: Cursor, id: Type.String(), realtime: Realtime });
const LogSummary = Type.Object({ active: Type.Boolean(), cursor: Cursor, id: Type.String(), realtime: Realtime });

export const AlertsResponseSchema = Type.Union([
  Type.Object({ active: Type.Array(FullEntry), log: Type.Array(FullEntry), next_cursor: Cursor }),
  Type.Object({ active: Type.Array(ActiveSummary), log: Type.Array(LogSummary), next_cursor: Cursor }),
]);

export const alertRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const sensor = app.sensor;
  const alertsPath = '/api/v1/sensor/alerts';
  const whole = parseAlertQuery({});
  app.get(
    alertsPath,
    {
      schema: {
        operationId: 'getAlerts',
        summary: 'Active alerts and the alert log',
        tags: ['status'],
        querystring: AlertsQuerySchema,
        response: { 200: Json(AlertsResponseSchema, 'Active alerts and log entries'), ...problems(400) },
      },
      // No query: the whole log in its default form.
      config: { preparedAnswer: () => cachedJsonBytes(renderAlerts(sensor.alerts.snapshot(), whole)) },
    },
    (request, reply) => {
      const query = parseAlertQuery(request.query as Record<string, unknown>);
      sendCachedJson(reply, renderAlerts(sensor.alerts.snapshot(), query));
    },
  );
};
