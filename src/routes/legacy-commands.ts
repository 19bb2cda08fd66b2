/**
 * The GET-only command endpoints of older clients (SDK 0.15 and earlier). Their success bodies are
 * compared byte for byte by those clients (docs/client-behaviour.md, Legacy commands), so they are sent as fixed text.
 * `args` is checked in the validation step, as every route's request is: by its rules (this unit's parameter
 * names, the registry's value rules), then by its schema; the handlers take checked values.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type TSchema } from '@sinclair/typebox';
import { badRequest, type ParameterName } from '../model/index.js';
import { type CheckedValues, isParameterName, PARAMETERS } from '../config/index.js';
import { callerAddress } from './http/query-flags.js';
import { checkedBy, Json, problems } from './api-schemas.js';
import { sendJsonText } from './http/cached-json.js';
import { configurationObject, ParameterValueSchema } from './config-schemas.js';
import type { TypeBoxApp } from './typebox-app.js';

const argsQuery = (args: TSchema) => Type.Object({ args }, { required: ['args'], additionalProperties: false });
const getArgs = argsQuery(
  Type.String({
    enum: ['active', 'staged', ...PARAMETERS.map((p) => p.name)],
    description: '"active", "staged" or a parameter name',
    examples: ['active'],
  }),
);
const setArgs = argsQuery(
  Type.String({
    pattern: '^([a-z0-9_]+|\\.) [\\s\\S]+$',
    description:
      '"<parameter> <JSON value>" (the space may be sent as +; bare keywords may be unquoted), or ". <JSON object>"',
    examples: ['lidar_mode 1024x10'],
  }),
);
/** `args` as it arrived: a string, or what its schema refuses (Ajv says why, after the rules). */
const argsOf = (query: unknown) => (query as { args?: unknown }).args;
const noQuery = Type.Object({}, { additionalProperties: false });
const EmptyObject = Json(Type.Object({}, { additionalProperties: false }), 'Done: {}');
const tags = ['legacy'];

/** `args=<key>+<url-encoded JSON>`: the `+` decodes to a space. Older clients send bare keywords unquoted. */
export function parseSetArgs(args: string): { key: string; value: unknown } {
  const space = args.indexOf(' ');
  if (space <= 0)
    throw badRequest('args must be "<parameter> <JSON value>"', [
      { pointer: '/query/args', detail: 'expected a parameter name, a space (or +) and a value' },
    ]);
  const key = args.slice(0, space);
  const text = args.slice(space + 1);
  try {
    return { key, value: JSON.parse(text) };
  } catch {
    if (key === '.')
      throw badRequest('args for "." must hold a JSON object of configuration parameters', [
        { pointer: '/query/args', detail: 'the value is not valid JSON' },
      ]);
    return { key, value: text };
  }
}

const command = (operationId: string, summary: string) => ({ operationId, summary, tags, deprecated: true });

export const legacyCommandRoutes: FastifyPluginAsyncTypebox = async (app) => {
  readCommandRoutes(app);
  stageCommandRoutes(app);
  applyCommandRoutes(app);
};

/** get_config_param: a configuration, or one parameter of the active one. */
function readCommandRoutes(app: TypeBoxApp) {
  const sensor = app.sensor;
  // A configuration or a parameter this unit has (its firmware may be older than some parameters).
  const getQuery = checkedBy(getArgs, (query): { args: 'active' | 'staged' | ParameterName } => {
    const args = argsOf(query);
    if (typeof args !== 'string') return query as never;
    if (args === 'active' || args === 'staged') return { args };
    if (isParameterName(args) && !sensor.offer.absentParameters.has(args)) return { args };
    throw badRequest(`args must be "active", "staged" or a configuration parameter name; got ${JSON.stringify(args)}`, [
      { pointer: '/query/args', detail: 'unknown parameter' },
    ]);
  });
  app.get(
    '/api/v1/sensor/cmd/get_config_param',
    {
      schema: {
        ...command('legacyGetConfigParam', 'A configuration, or one parameter of the active one'),
        querystring: getQuery,
        response: {
          200: Json(Type.Union([Type.Ref('Configuration'), ParameterValueSchema]), 'The configuration or value'),
          ...problems(400),
        },
      },
    },
    async (request, reply) => {
      const { args } = request.query;
      const body =
        args === 'active' || args === 'staged'
          ? sensor.configs.reported(args)
          : sensor.configs.reported('active')[args];
      return sendJsonText(reply, JSON.stringify(body));
    },
  );
}

/** set_config_param and set_udp_dest_auto: stage a change, applied by reinitialize. */
function stageCommandRoutes(app: TypeBoxApp) {
  const sensor = app.sensor;
  // The staged change, through the registry's value rules as a POST's body.
  const setQuery = checkedBy(setArgs, (query, request): { values: CheckedValues } => {
    const args = argsOf(query);
    if (typeof args !== 'string') return query as never;
    const { key, value } = parseSetArgs(args);
    const input = key === '.' ? value : { [key]: value };
    return { values: sensor.configs.check(configurationObject(input), 'staged', callerAddress(request.ip)) };
  });
  // udp_dest = the caller's address, through the same rules.
  const autoDestinationQuery = checkedBy(noQuery, (_query, request): { values: CheckedValues } => ({
    values: sensor.configs.check({ udp_dest: callerAddress(request.ip) }, 'staged'),
  }));
  app.get(
    '/api/v1/sensor/cmd/set_config_param',
    {
      // A GET that changes the unit: --allow-writes-from guards it like a POST (src/routes/http/write-access.ts).
      config: { changesUnit: true },
      schema: {
        ...command('legacySetConfigParam', 'Stage a parameter (or an object of them); applied by reinitialize'),
        querystring: setQuery,
        response: {
          200: Json(
            // Typed as any string: the handler sends the JSON text itself.
            Type.Unsafe<string>({ type: 'string', const: 'set_config_param' }),
            'Staged',
          ),
          ...problems(400, 409),
        },
      },
    },
    async (request, reply) => {
      await sensor.configs.change(request.query.values, { reinit: false, persist: false });
      return sendJsonText(reply, '"set_config_param"');
    },
  );

  app.get(
    '/api/v1/sensor/cmd/set_udp_dest_auto',
    {
      // A GET that changes the unit: --allow-writes-from guards it like a POST (src/routes/http/write-access.ts).
      config: { changesUnit: true },
      schema: {
        ...command('legacySetUdpDestAuto', "Stage udp_dest = the caller's address"),
        querystring: autoDestinationQuery,
        response: { 200: EmptyObject, ...problems(400, 409) },
      },
    },
    async (request, reply) => {
      await sensor.configs.change(request.query.values, { reinit: false, persist: false });
      return sendJsonText(reply, '{}');
    },
  );
}

/** reinitialize and save_config_params: apply the staged configuration, persist the active one. */
function applyCommandRoutes(app: TypeBoxApp) {
  const sensor = app.sensor;
  app.get(
    '/api/v1/sensor/cmd/reinitialize',
    {
      // A GET that changes the unit: --allow-writes-from guards it like a POST (src/routes/http/write-access.ts).
      config: { changesUnit: true },
      schema: {
        ...command('legacyReinitialize', 'Apply the staged configuration'),
        querystring: noQuery,
        response: { 200: EmptyObject, ...problems(400, 409) },
      },
    },
    async (_request, reply) => {
      await sensor.configs.reinitialize();
      return sendJsonText(reply, '{}');
    },
  );

  app.get(
    '/api/v1/sensor/cmd/save_config_params',
    {
      // A GET that changes the unit: --allow-writes-from guards it like a POST (src/routes/http/write-access.ts).
      config: { changesUnit: true },
      schema: {
        ...command('legacySaveConfigParams', 'Persist the active configuration'),
        querystring: noQuery,
        response: { 200: EmptyObject, ...problems(400) },
      },
    },
    async (_request, reply) => {
      await sensor.configs.persistActive();
      return sendJsonText(reply, '{}');
    },
  );
}
