/** The user data field: `GET/PUT/DELETE /api/v1/user/data`. */
import type { FastifyPluginAsync } from 'fastify';
import type { Sensor } from '../sensor/sensor.js';
import { USER_DATA_POLICIES, type UserDataPolicy } from '../sensor/user-data.js';
import { flag } from './query-flags.js';

const getQuery = {
  type: 'object',
  properties: { include_metadata: { type: 'string', enum: ['true', '1', 'false', '0'] } },
  additionalProperties: false,
} as const;
const putQuery = {
  type: 'object',
  properties: { policy: { type: 'string', enum: [...USER_DATA_POLICIES] } },
  additionalProperties: false,
} as const;

export const userDataRoutes: FastifyPluginAsync<{ sensor: Sensor }> = async (app, { sensor }) => {
  app.get<{ Querystring: { include_metadata?: string } }>('/api/v1/user/data', { schema: { querystring: getQuery } }, async (request, reply) => {
    // A value is shown only once durable: a write in flight is answered to its writer first.
    const settled = sensor.userData.settled();
    if (settled) await settled;
    const data = sensor.userData.get();
    const body = flag(request.query.include_metadata, false) ? data : data.value;
    return reply.type('application/json').send(JSON.stringify(body));
  });

  app.put<{ Querystring: { policy?: UserDataPolicy } }>(
    '/api/v1/user/data',
    // A 128 KiB value JSON-escaped (\u0000-style) may be up to six times longer on the wire.
    { schema: { querystring: putQuery }, bodyLimit: 1024 * 1024 },
    async (request, reply) => {
      await sensor.userData.put(request.body, request.query.policy);
      return reply.code(204).send();
    },
  );

  app.delete('/api/v1/user/data', async (_request, reply) => {
    await sensor.userData.delete();
    return reply.code(204).send();
  });
};
