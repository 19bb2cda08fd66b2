/**
 * `GET /api/v1/openapi.json` and `GET /api/v1/openapi.yaml`: the API description, generated from
 * the routes registered after `collectRoutes` (src/routes/openapi-document.ts), made once on first use.
 */
import type { FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type TSchema } from '@sinclair/typebox';
import { buildOpenApiDocument, documentedRoute, type DocumentedRoute, type DocumentInfo } from './openapi-document.js';
import { problems } from './api-schemas.js';
import { sendJsonText } from './http/cached-json.js';
import { withOfferedEnums } from './schemas/offered-enums.js';
import { REPLAY_EXTENSION, type ReplayAnnouncement } from '../model/index.js';

const DOCUMENT_INFO: DocumentInfo = {
  title: 'Lidar sensor HTTP interface',
  version: '1.0.0',
  description:
    'Management interface of the lidar sensor (and of its simulator): configuration, metadata, alerts, telemetry, ' +
    'time, network, firmware and diagnostics. Errors are RFC 9457 problem+json bodies (components/schemas/Problem). ' +
    "Generated from the server's own route schemas.",
  tags: [
    { name: 'config', description: 'Sensor configuration (parameters from the parameter registry)' },
    { name: 'legacy', description: 'GET-only commands of older clients (SDK 0.15 and earlier)' },
    { name: 'metadata', description: 'Sensor metadata documents' },
    { name: 'status', description: 'Alerts and telemetry' },
    { name: 'time', description: 'Clocks, PTP and timing inputs' },
    { name: 'network', description: 'Network interface state and overrides' },
    { name: 'system', description: 'Restart, firmware, diagnostics, user data and this document' },
    { name: 'zone_monitor', description: 'Zone Monitor (firmware 3.2 and later): zone sets and live zones' },
  ],
};

/** Records every route registered on `app` from now on, in registration order. */
export function collectRoutes(app: FastifyInstance): readonly DocumentedRoute[] {
  const routes: DocumentedRoute[] = [];
  app.addHook('onRoute', (route) => {
    routes.push(...documentedRoute(route));
  });
  return routes;
}

const OpenApiDocumentSchema = Type.Object(
  { openapi: Type.Literal('3.1.0'), info: Type.Object({}), paths: Type.Object({}) },
  { description: 'This document (OpenAPI 3.1)', additionalProperties: true },
);

export interface OpenApiRoutesOptions {
  routes: readonly DocumentedRoute[];
  shared: readonly TSchema[];
  /** A lidar profile this unit accepts and reports beyond the registry's (a replayed LEGACY recording). */
  extraLidarProfile?: string;
  /** Values this unit's firmware does not have, by parameter (firmware 3.2's profiles on a 3.1 unit): not listed. */
  absentValues?: () => ReadonlyMap<string, readonly unknown[]>;
  /** Path prefixes the document leaves out when it is made (the zone routes of a unit below firmware 3.2). */
  leaveOut?: () => readonly string[];
  /** The firmware build the unit reports (`build_rev`, "v3.2.0"): the document describes that firmware's interface. */
  firmwareRev?: string;
  /** A replaying unit's statement that it replays (src/model/replay-announcement.ts), put in `info`. */
  replaying?: ReplayAnnouncement;
}

export const openApiRoutes: FastifyPluginAsyncTypebox<OpenApiRoutesOptions> = async (
  app,
  { routes, shared, extraLidarProfile, absentValues, firmwareRev, leaveOut, replaying },
) => {
  let document: Record<string, unknown> | undefined;
  let yamlText: string | undefined;
  let jsonText: string | undefined;
  const info = firmwareRev
    ? { ...DOCUMENT_INFO, description: `${DOCUMENT_INFO.description} This unit runs firmware ${firmwareRev}.` }
    : DOCUMENT_INFO;
  const build = () => {
    const prefixes = leaveOut?.() ?? [];
    const offered = routes.filter((route) => !prefixes.some((prefix) => route.url.startsWith(prefix)));
    const document = buildOpenApiDocument(info, offered, shared);
    if (replaying) document.info = { ...(document.info as object), [REPLAY_EXTENSION]: replaying };
    return document;
  };
  const built = () => (document ??= withOfferedEnums(build(), { absentValues: absentValues?.(), extraLidarProfile }));
  const json = () => (jsonText ??= JSON.stringify(built()));
  // The YAML library is loaded only when someone asks for YAML, not at every start of the unit.
  const yaml = async () => {
    if (yamlText === undefined) yamlText = (await import('./openapi-yaml.js')).openApiYaml(built());
    return yamlText;
  };
  const common = { tags: ['system'], response: { 200: OpenApiDocumentSchema, ...problems() } };
  app.get(
    '/api/v1/openapi.json',
    { schema: { ...common, operationId: 'getOpenApiJson', summary: 'This API description as JSON' } },
    async (_request, reply) => sendJsonText(reply, json()),
  );
  app.get(
    '/api/v1/openapi.yaml',
    {
      schema: {
        ...common,
        operationId: 'getOpenApiYaml',
        summary: 'This API description as YAML',
        response: {
          200: {
            description: 'This document (OpenAPI 3.1)',
            content: { 'application/yaml': { schema: Type.String() } },
          },
          ...problems(),
        },
      },
    },
    async (_request, reply) => reply.type('application/yaml').send(await yaml()),
  );
};
