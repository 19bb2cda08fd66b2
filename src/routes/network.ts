/**
 * The network resources: `GET /api/v1/system/network`, `…/ipv4`, `GET/PUT/DELETE …/ipv4/override`
 * and `GET/PUT/DELETE …/speed_override`. Changes are answered first; the interface is reset a
 * sub-second delay after the response is written (afterResponse → NetworkService.scheduleReset).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type TSchema } from '@sinclair/typebox';
import { badRequest, parseCidr, parseIpv4, parseIpv4Override } from '../model/index.js';
import { sendJsonText } from './http/cached-json.js';
import { checkedBy, Json, jsonContentTypeOnly, NoContent, problems } from './api-schemas.js';
import { afterResponse } from './http/after-response.js';
import type { TypeBoxApp } from './typebox-app.js';

const Ipv4Schema = Type.Object({
  addr: Type.String(),
  link_local: Type.String(),
  override: Type.Union([Type.String(), Type.Null()]),
});
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

const OverrideSchema = Type.Union([Type.String({ description: 'CIDR' }), Type.Null()], {
  description: 'The static IPv4 override as a CIDR, or null when the address is dynamic',
});
const OCTET = '(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])';
const DOTTED_QUAD = `(${OCTET}\\.){3}${OCTET}`;
const OverrideInputSchema = Type.String({
  description:
    'A unicast IPv4 address, with a prefix length or a netmask, or without (then the current prefix, else /24)',
  pattern: `^${DOTTED_QUAD}(/([0-9]|[12][0-9]|3[0-2]|${DOTTED_QUAD}))?$`,
  examples: ['192.0.2.100/24'],
});
const OverrideAnswerSchema = Type.String({
  description: 'The CIDR that will be applied',
  examples: ['192.0.2.100/24'],
});
const SpeedSchema = Type.Literal(100, { description: 'Link speed forced to 100 Mbps', examples: [100] });
const SpeedOverrideSchema = Type.Union([SpeedSchema, Type.Null()], { description: '100, or null when negotiated' });
const NETWORK_EXAMPLE = {
  carrier: true,
  duplex: 'full',
  ethaddr: '02:1c:73:bf:48:bb',
  hostname: 'os-122201000123',
  ipv4: { addr: '192.0.2.10/24', link_local: '169.254.103.7/16', override: null },
  ipv6: { link_local: 'fe80::1c:73ff:febf:48bb/64' },
  speed: 1000,
  speed_override: null,
};
const RESET = 'Done; the interface is reset a sub-second delay after this answer';

const json = (value: unknown) => JSON.stringify(value);
const document = (operationId: string, summary: string) => ({ operationId, summary, tags: ['network'] });
const ok = (schema: TSchema, description: string, example?: unknown) => ({
  200: Json(schema, description, example),
  ...problems(),
});

export const networkRoutes: FastifyPluginAsyncTypebox = async (app) => {
  interfaceRoutes(app);
  ipv4OverrideRoutes(app);
  speedOverrideRoutes(app);
};

/** The interface's state, whole and its IPv4 part. */
function interfaceRoutes(app: TypeBoxApp) {
  const network = app.sensor.network;
  app.get(
    NETWORK,
    {
      schema: {
        ...document('getNetwork', 'The network interface'),
        response: ok(NetworkSchema, 'Interface state', NETWORK_EXAMPLE),
      },
    },
    async () => network.network(),
  );
  app.get(
    `${NETWORK}/ipv4`,
    {
      schema: {
        ...document('getIpv4', 'IPv4 addresses'),
        response: ok(Ipv4Schema, 'IPv4 state', NETWORK_EXAMPLE.ipv4),
      },
    },
    async () => network.ipv4(),
  );
}

/** The static IPv4 override: read, set, remove (back to dynamic). */
function ipv4OverrideRoutes(app: TypeBoxApp) {
  const network = app.sensor.network;
  app.get(
    `${NETWORK}/ipv4/override`,
    {
      schema: {
        ...document('getIpv4Override', 'The static IPv4 override'),
        response: ok(OverrideSchema, 'The override'),
      },
    },
    async (_request, reply) => sendJsonText(reply, json(network.override())),
  );
  app.put(
    `${NETWORK}/ipv4/override`,
    {
      schema: {
        ...document('setIpv4Override', 'Set a static IPv4 address'),
        body: checkedBy(OverrideInputSchema, ipv4OverrideText),
        response: { 200: Json(OverrideAnswerSchema, RESET), ...problems(400) },
      },
    },
    async (request, reply) => {
      const cidr = await network.setOverride(request.body);
      afterResponse(reply, () => network.scheduleReset());
      return sendJsonText(reply, json(cidr));
    },
  );
  app.delete(
    `${NETWORK}/ipv4/override`,
    {
      schema: {
        ...document('deleteIpv4Override', 'Back to dynamic IPv4'),
        response: { 204: Json(NoContent, RESET), ...problems() },
      },
    },
    async (_request, reply) => {
      network.deleteOverride();
      afterResponse(reply, () => network.scheduleReset());
      return reply.code(204).send();
    },
  );
}

/** The link speed override of T1 models: read, force 100 Mbps, remove (back to negotiated). */
function speedOverrideRoutes(app: TypeBoxApp) {
  const network = app.sensor.network;
  const t1Only = ' (T1 models only; 409 on others)';
  app.get(
    `${NETWORK}/speed_override`,
    {
      schema: {
        ...document('getSpeedOverride', `The link speed override${t1Only}`),
        response: { 200: Json(SpeedOverrideSchema, 'The override'), ...problems(409) },
      },
    },
    async (_request, reply) => sendJsonText(reply, json(network.speedOverride())),
  );
  app.put(
    `${NETWORK}/speed_override`,
    {
      // Refused on a model without the setting (409) before its request is looked at.
      preValidation: async () => network.requireT1(),
      schema: {
        ...document('setSpeedOverride', `Force 100 Mbps; Content-Type: application/json${t1Only}`),
        body: jsonContentTypeOnly(checkedBy(SpeedSchema, speedOverrideValue)),
        response: { 200: Json(SpeedSchema, RESET), ...problems(400, 409, 415) },
      },
    },
    async (_request, reply) => {
      const speed = network.setSpeedOverride();
      afterResponse(reply, () => network.scheduleReset());
      return sendJsonText(reply, json(speed));
    },
  );
  app.delete(
    `${NETWORK}/speed_override`,
    {
      schema: {
        ...document('deleteSpeedOverride', `Back to negotiated speed${t1Only}`),
        response: { 204: Json(NoContent, RESET), ...problems(409) },
      },
    },
    async (_request, reply) => {
      network.deleteSpeedOverride();
      afterResponse(reply, () => network.scheduleReset());
      return reply.code(204).send();
    },
  );
}

/** The one value the speed override takes: the JSON number 100 (Mbps); anything else is a 400. */
function speedOverrideValue(value: unknown): 100 {
  if (value === 100) return 100;
  const got = value === undefined ? 'no body' : JSON.stringify(value);
  throw badRequest(`the speed override accepts only the JSON number 100 (Mbps); got ${got}`);
}

/** The IPv4 override's body: a JSON string of an IPv4 address, with a prefix or netmask or without (whether the address may be the unit's is checked against its current prefix by `setOverride`). */
function ipv4OverrideText(value: unknown): string {
  const malformed =
    typeof value !== 'string' || (value.includes('/') ? parseCidr(value) : parseIpv4(value)) === undefined;
  if (malformed) {
    const parsed = parseIpv4Override(value, 24);
    if (!parsed.ok) throw badRequest(parsed.problem);
  }
  return value as string;
}
