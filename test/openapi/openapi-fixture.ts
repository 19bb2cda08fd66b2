/**
 * The served OpenAPI document and an Ajv (JSON Schema 2020-12, the OpenAPI 3.1 dialect) that
 * validates answers against the schemas it documents, `$ref`s into components included.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { FastifyInstance } from 'fastify';
import { buildImage, generatedPayload } from '../../src/model/image-format.js';
import { isValidUdpDestination } from '../../src/config/config-formats.js';
import { stlZoneSetZip } from '../zones/zone-set-zips.js';

export type Json = Record<string, unknown>;
export type OpenApiDocument = Json & { paths: Record<string, Record<string, Operation>>; components: Json };
export interface Operation {
  operationId: string;
  parameters?: { name: string; in: 'path' | 'query'; required: boolean; example?: unknown; schema: Json }[];
  requestBody?: { content: Record<string, { schema: Json; examples?: Record<string, { value: unknown }> }> };
  responses: Record<string, { description: string; content?: Record<string, { schema: Json }> }>;
}

export const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;

export async function fetchDocument(app: FastifyInstance): Promise<OpenApiDocument> {
  const response = await app.inject({ url: '/api/v1/openapi.json' });
  if (response.statusCode !== 200) throw new Error(`GET /api/v1/openapi.json: ${response.statusCode} ${response.body}`);
  return response.json<OpenApiDocument>();
}

/** `(path, method, status, contentType)` → a validator of that documented response body. */
export function responseValidators(document: OpenApiDocument) {
  // strict off: the document (its OpenAPI keys around the schemas) is registered as one schema resource.
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addFormat('udp-destination', { type: 'string', validate: isValidUdpDestination });
  ajv.addSchema(document, 'openapi');
  const pointer = (...parts: string[]) => parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');
  return (path: string, method: string, status: string, contentType: string) =>
    ajv.compile({
      $ref: `openapi#/${pointer('paths', path, method, 'responses', status, 'content', contentType, 'schema')}`,
    });
}

/** One operation of the document: its templated path, method and description. */
export interface DocumentedCall {
  path: string;
  method: string;
  operation: Operation;
}

/** A request ready for any transport: `inject()` takes it as it is, `fetch` through `urlOf`. */
export interface DocumentedRequest {
  method: string;
  url: string;
  query: Record<string, string>;
  headers?: Record<string, string>;
  payload?: string | Buffer;
}

/** Operations after which the unit restarts: run them last and wait for the unit to answer again. */
export const RESTARTING = new Set(['resetConfig', 'restart', 'legacyReboot', 'uploadFirmware']);

/**
 * Operations whose example needs what an earlier one made, in the order a client calls them: Zone Monitor's
 * set is staged, read, applied, read, its live ids set, then the staged copy removed.
 */
const WORKFLOW_STEP: Record<string, number> = {
  stageZoneSet: 1,
  getStagedZoneSet: 2,
  headStagedZoneSet: 2,
  applyZoneSet: 3,
  getActiveZoneSet: 4,
  headActiveZoneSet: 4,
  getLiveZoneIds: 4,
  setLiveZoneIds: 5,
  deleteStagedZoneSet: 6,
  deleteStagedZoneSetSdk: 6,
};

/**
 * Every operation of the document, the restarting ones last (so the others run on an unchanged unit), those
 * of a workflow in its order.
 */
export function documentedCalls(document: OpenApiDocument): DocumentedCall[] {
  const calls = Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ path, method, operation })),
  );
  const rank = (c: DocumentedCall) =>
    RESTARTING.has(c.operation.operationId) ? 100 : (WORKFLOW_STEP[c.operation.operationId] ?? 0);
  return calls.sort((a, b) => rank(a) - rank(b));
}

/** A binary body has no example in the document: a real firmware image. */
const BINARY_BODIES: Record<string, () => Buffer> = {
  'application/octet-stream': () =>
    buildImage('ousteros-image-prod-bootes-v3.2.0+20250101120000', generatedPayload('contract', 4096)),
};

/** Binary bodies of particular operations: Zone Monitor stages a zone set zip (zones 0 and 1, the live_ids example). */
const OPERATION_BODIES: Record<string, () => Buffer> = {
  stageZoneSet: () =>
    Buffer.from(
      stlZoneSetZip([
        { id: 0, min: [1, -0.5, -0.5], max: [2, 0.5, 0.5] },
        { id: 1, min: [-0.5, 1, -0.5], max: [0.5, 2, 0.5] },
      ]),
    ),
};

/**
 * The documented request(s) of an operation, from its examples: one per request body example, or one without
 * a body. Throws when the document lacks an example a request needs.
 */
export function exampleRequests(call: DocumentedCall): DocumentedRequest[] {
  let url = call.path;
  const query: Record<string, string> = {};
  for (const parameter of call.operation.parameters ?? []) {
    if (parameter.example === undefined) {
      if (parameter.required)
        throw new Error(`${call.operation.operationId}: required parameter ${parameter.name} has no example`);
      continue;
    }
    if (parameter.in === 'path')
      url = url.replace(`{${parameter.name}}`, encodeURIComponent(String(parameter.example)));
    else query[parameter.name] = String(parameter.example);
  }
  const base: DocumentedRequest = { method: call.method.toUpperCase(), url, query };
  const content = call.operation.requestBody?.content;
  if (!content) return [base];
  const [[type, media]] = Object.entries(content);
  const binary = OPERATION_BODIES[call.operation.operationId] ?? BINARY_BODIES[type];
  if (binary) return [{ ...base, headers: { 'content-type': type }, payload: binary() }];
  const examples = Object.values(media.examples ?? {});
  if (examples.length === 0) throw new Error(`${call.operation.operationId}: a request body without examples`);
  return examples.map(({ value }) => ({ ...base, headers: { 'content-type': type }, payload: JSON.stringify(value) }));
}
