/**
 * `GET /api/v1/sensor/alerts`: the alert log as the spec's alert rules describe it. The cursor
 * filter and the summary form are in src/alerts/alert-query.ts; this plugin only wires them.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { parseAlertQuery, renderAlerts } from '../alerts/index.js';
import { sendCachedJson } from './http/cached-json.js';
import { Json, problems } from './api-schemas.js';

// Values are checked by parseAlertQuery, which names the valid range in its message; the schema
// rejects unknown parameters and repeated ones (an array instead of a string).
const AlertsQuerySchema = Type.Object(
  {
    cursor: Type.Optional(
      Type.String({
        description: 'Only entries after this cursor (next_cursor of an earlier answer)',
        examples: ['0'],
      }),
    ),
    mode: Type.Optional(Type.String({ description: '"summary": entries without messages', examples: ['summary'] })),
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
  app.get(
    '/api/v1/sensor/alerts',
    {
      schema: {
        operationId: 'getAlerts',
        summary: 'Active alerts and the alert log',
        tags: ['status'],
        querystring: AlertsQuerySchema,
        response: { 200: Json(AlertsResponseSchema, 'Active alerts and log entries'), ...problems(400) },
      },
    },
    (request, reply) => {
      const query = parseAlertQuery(request.query as Record<string, unknown>);
      sendCachedJson(reply, renderAlerts(sensor.alerts.snapshot(), query));
    },
  );
};
