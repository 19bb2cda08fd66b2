/**
 * Configuration: `GET/POST/DELETE /api/v1/sensor/config` and `GET/PUT /api/v1/sensor/config/<name>`,
 * with the staged/active/persisted flags of client-contract.md. Validation is the core's (the
 * parameter registry), so POST, PUT and the legacy commands give the same answers.
 */
import type { FastifyPluginAsync } from 'fastify';
import { badRequest, notFound } from '../errors.js';
import { findDeprecatedAlias, findParameter } from '../config/registry.js';
import type { Sensor } from '../sensor/sensor.js';
import { requireJsonContentType } from './json-body.js';
import { callerAddress, flag, flagSchema } from './query-flags.js';
import { afterResponse } from './after-response.js';
import { sendCachedJson } from './cached-json.js';

interface ConfigQuery {
  staging?: string;
  reinit?: string;
  persist?: string;
}

const readQuery = { type: 'object', properties: { staging: flagSchema }, additionalProperties: false } as const;
const writeQuery = {
  type: 'object',
  properties: { staging: flagSchema, reinit: flagSchema, persist: flagSchema },
  additionalProperties: false,
} as const;

function lookUp(name: string) {
  const parameter = findParameter(name);
  if (parameter) return parameter;
  const alias = findDeprecatedAlias(name);
  throw notFound(
    alias
      ? `configuration parameter ${JSON.stringify(name)} is deprecated since ${alias.since} and not readable; use ${JSON.stringify(alias.replacement)}`
      : `unknown configuration parameter ${JSON.stringify(name)} (names are case-sensitive)`,
  );
}

export const configRoutes: FastifyPluginAsync<{ sensor: Sensor }> = async (app, { sensor }) => {
  // Each configuration is a frozen object replaced on change, so its JSON text is made once per change.
  app.get<{ Querystring: ConfigQuery }>('/api/v1/sensor/config', { schema: { querystring: readQuery } }, async (request, reply) =>
    sendCachedJson(reply, sensor.config(flag(request.query.staging, false) ? 'staged' : 'active')),
  );

  app.post<{ Querystring: ConfigQuery }>('/api/v1/sensor/config', { schema: { querystring: writeQuery } }, async (request, reply) => {
    const { reinit, persist } = request.query;
    await sensor.changeConfig(request.body, {
      reinit: flag(reinit, true),
      persist: flag(persist, true),
      autoDestination: callerAddress(request.ip),
    });
    return reply.code(204).send();
  });

  app.delete('/api/v1/sensor/config', async (_request, reply) => {
    await sensor.resetConfiguration();
    afterResponse(reply, () => sensor.restart());
    return reply.code(204).send();
  });

  app.get<{ Params: { name: string }; Querystring: ConfigQuery }>(
    '/api/v1/sensor/config/:name',
    { schema: { querystring: readQuery } },
    async (request, reply) => {
      const { name } = lookUp(request.params.name);
      const config = sensor.config(flag(request.query.staging, false) ? 'staged' : 'active');
      // Serialised by hand: a keyword value must go out as a quoted JSON string, not as text.
      return reply.type('application/json').send(JSON.stringify(config[name]));
    },
  );

  app.put<{ Params: { name: string } }>('/api/v1/sensor/config/:name', async (request, reply) => {
    const name = request.params.name;
    if (!findDeprecatedAlias(name)) lookUp(name);
    requireJsonContentType(request);
    if (request.body === undefined) throw badRequest(`the body must be the JSON value of ${name}`);
    await sensor.setParameter(name, request.body);
    return reply.code(204).send();
  });
};
