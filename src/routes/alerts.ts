/**
 * `GET /api/v1/sensor/alerts`: the alert log as the spec's alert rules describe it. The cursor
 * filter and the summary form are in src/alerts/alert-query.ts; this plugin only wires them.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ALERT_MODES, parseAlertQuery, renderAlerts } from '../alerts/index.js';
import { cachedJsonBytes, sendCachedJson } from './http/cached-json.js';
import { checkedBy, Json, problems } from './api-schemas.js';

/** 0 … 4294967295 written in decimal (leading zeros allowed), as a regular expression. */
const U32_DECIMAL_PATTERN =
  '^(?=[0-9]{1,10}$)0*([0-9]{1,9}|[1-3][0-9]{9}|4[01][0-9]{8}|42[0-8][0-9]{7}|429[0-3][0-9]{6}|4294[0-8][0-9]{5}|' +
  '42949[0-5][0-9]{4}|429496[0-6][0-9]{3}|4294967[01][0-9]{2}|42949672[0-8][0-9]|429496729[0-5])$';

// parseAlertQuery (the route's rules) answers first, naming the valid range in its message, and turns the query
// into the AlertQuery the handler gets; then Ajv checks the same limits with this schema, which also refuses
// unknown parameters and repeated ones (an array instead of a string).
const AlertsQuerySchema = checkedBy(
  Type.Object(
    {
      cursor: Type.Optional(
        Type.String({
          pattern: U32_DECIMAL_PATTERN,
          description:
            'Only entries after this cursor (next_cursor of an earlier answer): an integer from 0 to 4294967295, in decimal',
          examples: ['0'],
        }),
      ),
      mode: Type.Optional(
        Type.String({
          enum: [...ALERT_MODES],
          description: '"summary": entries without messages',
          examples: ['summary'],
        }),
      ),
    },
    { additionalProperties: false },
  ),
  (query) => parseAlertQuery((query ?? {}) as Record<string, unknown>),
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
      sendCachedJson(reply, renderAlerts(sensor.alerts.snapshot(), request.query));
    },
  );
};
