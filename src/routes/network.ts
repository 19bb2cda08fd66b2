/**
 * The network resources: `GET /api/v1/system/network`, `…/ipv4`, `GET/PUT/DELETE …/ipv4/override`
 * and `GET/PUT/DELETE …/speed_override`. Changes are answered first; the interface is reset a
 * sub-second delay after the response is written (afterResponse → NetworkService.scheduleReset).
 */
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Sensor } from '../sensor/sensor.js';
import { afterResponse } from './after-response.js';
import { requireJsonContentType } from './json-body.js';

const Ipv4Schema = Type.Object({ addr: Type.String(), link_local: Type.String(), override: Type.Union([Type.String(), Type.Null()]) });
const NetworkSchema = Type.Object({
  carrier: Type.Boolean(),
  duplex: Type.String(),
  ethaddr: Type.String(),
  hostname: Type.String(),
  ipv4: Ipv4Schema,
  ipv6: Type.Object({ link_local: Type.String() }),
  speed: Type.Integer(),
  speed_override: Type.Union([Type.Literal(100), Type.Null()]),
});

const NETWORK = '/api/v1/system/network';

export const networkRoutes: FastifyPluginAsync<{ sensor: Sensor }> = async (app, { sensor }) => {
  const network = sensor.network;
  const json = (value: unknown) => JSON.stringify(value);

  app.get(NETWORK, { schema: { response: { 200: NetworkSchema } } }, async () => network.network());
  app.get(`${NETWORK}/ipv4`, { schema: { response: { 200: Ipv4Schema } } }, async () => network.ipv4());

  app.get(`${NETWORK}/ipv4/override`, async (_request, reply) => reply.type('application/json').send(json(network.override())));
  app.put(`${NETWORK}/ipv4/override`, async (request, reply) => {
    const cidr = await network.setOverride(request.body);
    afterResponse(reply, () => network.scheduleReset());
    return reply.type('application/json').send(json(cidr));
  });
  app.delete(`${NETWORK}/ipv4/override`, async (_request, reply) => {
    network.deleteOverride();
    afterResponse(reply, () => network.scheduleReset());
    return reply.code(204).send();
  });

  app.get(`${NETWORK}/speed_override`, async (_request, reply) => reply.type('application/json').send(json(network.speedOverride())));
  app.put(`${NETWORK}/speed_override`, async (request, reply) => {
    network.requireT1();
    requireJsonContentType(request);
    const speed = network.setSpeedOverride(request.body);
    afterResponse(reply, () => network.scheduleReset());
    return reply.type('application/json').send(json(speed));
  });
  app.delete(`${NETWORK}/speed_override`, async (_request, reply) => {
    network.deleteSpeedOverride();
    afterResponse(reply, () => network.scheduleReset());
    return reply.code(204).send();
  });
};
