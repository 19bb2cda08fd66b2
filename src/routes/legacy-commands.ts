/**
 * The GET-only command endpoints of older clients (SDK 0.15 and earlier). Their success bodies are
 * compared byte for byte by those clients (client-contract.md), so they are sent as fixed text.
 */
import type { FastifyPluginAsync } from 'fastify';
import { badRequest } from '../errors.js';
import { isParameterName } from '../config/registry.js';
import type { Sensor } from '../sensor/sensor.js';
import { callerAddress } from './query-flags.js';

const argsQuery = {
  type: 'object',
  properties: { args: { type: 'string' } },
  required: ['args'],
  additionalProperties: false,
} as const;
const noQuery = { type: 'object', additionalProperties: false } as const;

/** `args=<key>+<url-encoded JSON>`: the `+` decodes to a space. Older clients send bare keywords unquoted. */
export function parseSetArgs(args: string): { key: string; value: unknown } {
  const space = args.indexOf(' ');
  if (space <= 0) throw badRequest('args must be "<parameter> <JSON value>"', [{ pointer: '/query/args', detail: 'expected a parameter name, a space (or +) and a value' }]);
  const key = args.slice(0, space);
  const text = args.slice(space + 1);
  try {
    return { key, value: JSON.parse(text) };
  } catch {
    if (key === '.') throw badRequest('args for "." must hold a JSON object of configuration parameters', [{ pointer: '/query/args', detail: 'the value is not valid JSON' }]);
    return { key, value: text };
  }
}

export const legacyCommandRoutes: FastifyPluginAsync<{ sensor: Sensor }> = async (app, { sensor }) => {
  const json = (text: string) => ({ text, type: 'application/json' });
  const EMPTY_OBJECT = json('{}');

  app.get<{ Querystring: { args: string } }>('/api/v1/sensor/cmd/get_config_param', { schema: { querystring: argsQuery } }, async (request, reply) => {
    const { args } = request.query;
    let body: unknown;
    if (args === 'active' || args === 'staged') body = sensor.config(args);
    else if (isParameterName(args)) body = sensor.config('active')[args];
    else throw badRequest(`args must be "active", "staged" or a configuration parameter name; got ${JSON.stringify(args)}`, [{ pointer: '/query/args', detail: 'unknown parameter' }]);
    return reply.type('application/json').send(JSON.stringify(body));
  });

  app.get<{ Querystring: { args: string } }>('/api/v1/sensor/cmd/set_config_param', { schema: { querystring: argsQuery } }, async (request, reply) => {
    const { key, value } = parseSetArgs(request.query.args);
    const input = key === '.' ? value : { [key]: value };
    await sensor.changeConfig(input, { reinit: false, persist: false, autoDestination: callerAddress(request.ip) });
    const ok = json('"set_config_param"');
    return reply.type(ok.type).send(ok.text);
  });

  app.get('/api/v1/sensor/cmd/set_udp_dest_auto', { schema: { querystring: noQuery } }, async (request, reply) => {
    await sensor.changeConfig({ udp_dest: callerAddress(request.ip) }, { reinit: false, persist: false });
    return reply.type(EMPTY_OBJECT.type).send(EMPTY_OBJECT.text);
  });

  app.get('/api/v1/sensor/cmd/reinitialize', { schema: { querystring: noQuery } }, async (_request, reply) => {
    await sensor.reinitialize();
    return reply.type(EMPTY_OBJECT.type).send(EMPTY_OBJECT.text);
  });

  app.get('/api/v1/sensor/cmd/save_config_params', { schema: { querystring: noQuery } }, async (_request, reply) => {
    await sensor.persistActive();
    return reply.type(EMPTY_OBJECT.type).send(EMPTY_OBJECT.text);
  });
};
