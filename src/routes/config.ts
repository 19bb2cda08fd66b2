/**
 * Configuration: `GET/POST/DELETE /api/v1/sensor/config` and `GET/PUT /api/v1/sensor/config/<name>`,
 * with the staged/active/persisted flags of docs/client-behaviour.md. The bodies are checked in the
 * validation step by the parameter registry's value rules (checkedBy), so POST, PUT and the legacy
 * commands give the same answers, and the core takes only checked values.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { badRequest, notFound, type ParameterName } from '../model/index.js';
import { findDeprecatedAlias, findParameter } from '../config/index.js';
import { callerAddress, flag } from './http/query-flags.js';
import { afterResponse } from './http/after-response.js';
import { cachedJsonBytes, sendCachedJson, sendJsonText } from './http/cached-json.js';
import { checkedBy, Flag, Json, jsonContentTypeOnly, NoContent, PER_PATH_VALUE, problems } from './api-schemas.js';
import {
  ConfigurationChangeSchema,
  configurationObject,
  PARAMETER_VALUE_SCHEMAS,
  ParameterNameSchema,
  ParameterValueSchema,
  WRITABLE_VALUE_SCHEMAS,
} from './config-schemas.js';
import { withOfferedEnums } from './schemas/offered-enums.js';
import type { TypeBoxApp } from './typebox-app.js';

const staging = Flag('true: the staged configuration (what the next reinit applies) instead of the active one');
const readQuery = Type.Object({ staging: Type.Optional(staging) }, { additionalProperties: false });
const writeQuery = Type.Object(
  {
    staging: Type.Optional(Flag('accepted for compatibility; a change is always staged first')),
    reinit: Type.Optional(Flag('apply the change now (default true); false only stages it')),
    persist: Type.Optional(Flag('persist the change across restarts (default true)')),
  },
  { additionalProperties: false },
);
const nameParams = Type.Object({ name: ParameterNameSchema });
const Configuration = Json(Type.Ref('Configuration'), 'The configuration');

/** The parameter `name` of a unit without the parameters in `absent` (its firmware is older than they are). */
function lookUp(name: string, absent: ReadonlySet<string>) {
  const parameter = absent.has(name) ? undefined : findParameter(name);
  if (parameter) return parameter;
  // `/api/v1/sensor/config/` is the collection with a trailing slash, not a parameter named "".
  if (name === '')
    throw notFound(
      'no endpoint at /api/v1/sensor/config/; the resource is /api/v1/sensor/config (without the trailing slash)',
    );
  const alias = findDeprecatedAlias(name);
  throw notFound(
    alias
      ? `configuration parameter ${JSON.stringify(name)} is deprecated since ${alias.since} and not readable; use ${JSON.stringify(alias.replacement)}`
      : `unknown configuration parameter ${JSON.stringify(name)} (names are case-sensitive)`,
  );
}

const tags = ['config'];
const nameOf = (params: unknown) => (params as { name: string }).name;
// A unit replaying a LEGACY recording takes its lidar profile too: its schemas say so, as its document does.
const offered = <T>(app: TypeBoxApp, schema: T) =>
  withOfferedEnums(schema, { extraLidarProfile: app.sensor.configs.recordedOnlyProfile });

export const configRoutes: FastifyPluginAsyncTypebox = async (app) => {
  wholeConfigurationRoutes(app);
  parameterRoutes(app);
};

/** The whole configuration: read (active or staged), change any set of parameters, reset. */
function wholeConfigurationRoutes(app: TypeBoxApp) {
  const sensor = app.sensor;
  const changeBody = checkedBy(offered(app, ConfigurationChangeSchema), (body, request) =>
    sensor.configs.check(configurationObject(body), 'staged', callerAddress(request.ip)),
  );
  // Each configuration is a frozen object replaced on change, so its JSON text is made once per change.
  const configPath = '/api/v1/sensor/config';
  app.get(
    configPath,
    {
      schema: {
        operationId: 'getConfig',
        summary: 'The active (or staged) configuration',
        tags,
        querystring: readQuery,
        response: { 200: Configuration, ...problems(400) },
      },
      config: { preparedAnswer: () => cachedJsonBytes(sensor.configs.reported('active')) },
    },
    (request, reply) => {
      sendCachedJson(reply, sensor.configs.reported(flag(request.query.staging, false) ? 'staged' : 'active'));
    },
  );

  app.post(
    '/api/v1/sensor/config',
    {
      schema: {
        operationId: 'changeConfig',
        summary: 'Change any set of parameters at once (all or nothing)',
        tags,
        querystring: writeQuery,
        body: changeBody,
        response: {
          204: Json(NoContent, 'Changed (and applied and persisted as the flags say)'),
          ...problems(400, 409),
        },
      },
    },
    async (request, reply) => {
      const { reinit, persist } = request.query;
      await sensor.configs.change(request.body, { reinit: flag(reinit, true), persist: flag(persist, true) });
      return reply.code(204).send();
    },
  );

  app.delete(
    '/api/v1/sensor/config',
    {
      schema: {
        operationId: 'resetConfig',
        summary: 'Reset every parameter to its default, then restart',
        tags,
        response: { 204: Json(NoContent, 'Reset; the unit restarts right after this answer'), ...problems() },
      },
    },
    async (_request, reply) => {
      await sensor.configs.reset();
      afterResponse(reply, () => sensor.power.restart());
      return reply.code(204).send();
    },
  );
}

/** One parameter: read it (active or staged), set it. */
function parameterRoutes(app: TypeBoxApp) {
  const sensor = app.sensor;
  // GET reads a parameter this unit has; PUT also takes a deprecated name (mapped by the value rules).
  const readableName = checkedBy(nameParams, (params) => ({
    name: lookUp(nameOf(params), sensor.offer.absentParameters).name as ParameterName,
  }));
  const writableName = checkedBy(nameParams, (params) => {
    const name = nameOf(params);
    if (!findDeprecatedAlias(name)) lookUp(name, sensor.offer.absentParameters);
    return { name };
  });
  const parameterBody = checkedBy(offered(app, ParameterValueSchema), (value, request) => {
    const name = nameOf(request.params);
    if (value === undefined) throw badRequest(`the body must be the JSON value of ${name}`);
    return sensor.configs.check({ [name]: value }, 'active');
  });
  // The per-parameter paths of the document: only the parameters this unit's firmware has.
  const present = <T>(schemas: Record<string, T>) =>
    Object.fromEntries(Object.entries(schemas).filter(([name]) => !sensor.offer.absentParameters.has(name)));
  app.get(
    '/api/v1/sensor/config/:name',
    {
      schema: {
        operationId: 'getConfigParameter',
        summary: "One parameter's value",
        tags,
        params: readableName,
        querystring: readQuery,
        [PER_PATH_VALUE]: { parameter: 'name', schemas: present(PARAMETER_VALUE_SCHEMAS) },
        response: { 200: Json(ParameterValueSchema, "The parameter's value"), ...problems(400, 404) },
      },
    },
    async (request, reply) => {
      const { name } = request.params;
      const config = sensor.configs.reported(flag(request.query.staging, false) ? 'staged' : 'active');
      // Serialised by hand: a keyword value must go out as a quoted JSON string, not as text.
      return sendJsonText(reply, JSON.stringify(config[name]));
    },
  );

  app.put(
    '/api/v1/sensor/config/:name',
    {
      schema: {
        operationId: 'setConfigParameter',
        summary: 'Set one parameter (applied and persisted); Content-Type: application/json',
        tags,
        params: writableName,
        body: jsonContentTypeOnly(parameterBody),
        [PER_PATH_VALUE]: { parameter: 'name', schemas: present(WRITABLE_VALUE_SCHEMAS) },
        response: { 204: Json(NoContent, 'Set'), ...problems(400, 404, 409, 415) },
      },
    },
    async (request, reply) => {
      await sensor.configs.setParameter(request.body);
      return reply.code(204).send();
    },
  );
}
