/**
 * The OpenAPI 3.1 document, built from the routes as they are registered: each route's own
 * schemas (params, querystring, body, response) become its parameters, request body and responses,
 * so the document cannot drift from what the server validates and sends. Shared schemas (with an
 * `$id`) become components, and their references are rewritten to point there.
 */
import type { RouteOptions } from 'fastify';
import type { TSchema } from '@sinclair/typebox';
import {
  isByteStream,
  REQUEST_RULES,
  requestRulesOf,
  JSON_CONTENT_TYPE_ONLY,
  PER_PATH_VALUE,
  problemResponse,
  COMMON_PROBLEMS,
  BODY_PROBLEMS,
  STORAGE_PROBLEMS,
  type PerPathValue,
} from './api-schemas.js';

type Json = Record<string, unknown>;

export interface DocumentedRoute {
  method: string;
  url: string;
  schema: Json;
}

/**
 * The operations of a route. Routes Fastify adds by itself (HEAD for each GET) are not operations
 * of their own, and routes marked `hide` (pages and assets outside the API) are left out.
 */
export function documentedRoute(route: RouteOptions): DocumentedRoute[] {
  if (route.schema?.hide) return [];
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  return methods
    .filter((m) => m !== 'HEAD')
    .map((method) => ({ method: method.toLowerCase(), url: route.url, schema: (route.schema ?? {}) as Json }));
}

/** Drops TypeBox's symbol keys and points `$ref: "<id>"` at components. */
function toDocumentSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toDocumentSchema);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$id') continue;
    const sharedRef = key === '$ref' && typeof value === 'string' && !value.startsWith('#');
    if (sharedRef) out.$ref = `#/components/schemas/${value}`;
    else out[key] = key === 'examples' || key === 'default' || key === 'const' ? value : toDocumentSchema(value);
  }
  return out;
}

function withoutAnnotations(schema: Json): Json {
  const { description: _d, examples: _e, [REQUEST_RULES]: _h, [JSON_CONTENT_TYPE_ONLY]: _j, ...rest } = schema;
  return rest;
}

function parameters(schema: Json | undefined, location: 'path' | 'query'): Json[] {
  if (!schema) return [];
  const properties = (schema.properties ?? {}) as Record<string, Json>;
  const required = new Set((schema.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => {
    const examples = property.examples as unknown[] | undefined;
    return {
      name,
      in: location,
      required: location === 'path' || required.has(name),
      ...(property.description ? { description: property.description } : {}),
      schema: toDocumentSchema(withoutAnnotations(property)),
      ...(examples?.length ? { example: examples[0] } : {}),
    };
  });
}

function mediaType(schema: Json): Json {
  const examples = schema.examples as unknown[] | undefined;
  const documented = toDocumentSchema(schema) as Json;
  delete documented[REQUEST_RULES];
  delete documented[JSON_CONTENT_TYPE_ONLY];
  return {
    schema: documented,
    ...(examples?.length
      ? { examples: Object.fromEntries(examples.map((value, i) => [`example${i + 1}`, { value }])) }
      : {}),
  };
}

/** `{ content: { <type>: { schema } } }` as Fastify takes it, or a bare schema meaning JSON. */
function contentOf(schema: Json): Json {
  if (schema.content) {
    const content = schema.content as Record<string, { schema: Json }>;
    return Object.fromEntries(Object.entries(content).map(([type, entry]) => [type, mediaType(entry.schema)]));
  }
  return { 'application/json': mediaType(schema) };
}

/**
 * Types other than JSON under which the unit reads a JSON body too (so that `curl -d` works, as on a
 * real unit): the body is JSON text, described as a string whose content is the same schema.
 */
const JSON_AS_TEXT_TYPES = ['text/plain', 'application/x-www-form-urlencoded'];

function requestBody(body: Json | undefined): Json | undefined {
  if (!body) return undefined;
  const note =
    requestRulesOf(body) || isByteStream(body) ? ' Validated by the unit, which names every failing field.' : '';
  const content = contentOf(body);
  const json = content['application/json'] as Json | undefined;
  const textToo = json && body[JSON_CONTENT_TYPE_ONLY] !== true;
  const asText = textToo
    ? Object.fromEntries(
        JSON_AS_TEXT_TYPES.map((type) => [
          type,
          { schema: { type: 'string', contentMediaType: 'application/json', contentSchema: json.schema } },
        ]),
      )
    : {};
  const typesNote = textToo
    ? ` Read as JSON under ${JSON_AS_TEXT_TYPES.join(' and ')} too (as \`curl -d\` sends it); JSON is UTF-8, another charset is 415.`
    : json
      ? ' Content-Type must be application/json (415 otherwise).'
      : '';
  return {
    required: true,
    description: `${(body.description as string | undefined) ?? 'Request body.'}${note}${typesNote}`,
    content: { ...content, ...asText },
  };
}

/** Methods whose requests carry a body, and so can be too slow (408), too large (413) or of a refused type (415). */
const BODY_METHODS = new Set(['post', 'put', 'patch', 'delete']);

function responses(response: Record<string, Json> | undefined, method: string): Json {
  const common = [...COMMON_PROBLEMS, ...(BODY_METHODS.has(method) ? [...BODY_PROBLEMS, ...STORAGE_PROBLEMS] : [])];
  const all: Record<string, Json> = { ...response };
  for (const status of common) all[status] ??= problemResponse(status) as unknown as Json;
  const out: Json = {};
  for (const status of Object.keys(all).sort()) {
    const schema = all[status];
    const description = (schema.description as string | undefined) ?? 'Success';
    const headers = schema.headers ? { headers: schema.headers } : {};
    if (schema.type === 'null' && !schema.content) out[status] = { description, ...headers };
    else out[status] = { description, ...headers, content: contentOf(schema) };
  }
  return out;
}

/** The same answers without bodies, as HEAD gives them. */
function headResponses(get: Json): Json {
  return Object.fromEntries(
    Object.entries(get as Record<string, Json>).map(([status, { content: _c, ...rest }]) => [status, rest]),
  );
}

function operation(route: DocumentedRoute): Json {
  const { schema } = route;
  const params = [
    ...parameters(schema.params as Json | undefined, 'path'),
    ...parameters(schema.querystring as Json | undefined, 'query'),
  ];
  const body = requestBody(schema.body as Json | undefined);
  return {
    operationId: schema.operationId,
    summary: schema.summary,
    ...(schema.description ? { description: schema.description } : {}),
    tags: schema.tags,
    ...(schema.deprecated ? { deprecated: true } : {}),
    ...(params.length ? { parameters: params } : {}),
    ...(body ? { requestBody: body } : {}),
    responses: responses(schema.response as Record<string, Json> | undefined, route.method),
  };
}

/** `getMetadata` → `headMetadata`: HEAD answers every GET resource, with the GET's statuses and headers. */
function headOperation(get: Json): Json {
  const { operationId, summary, requestBody: _b, responses: getResponses, ...rest } = get;
  return {
    ...rest,
    operationId: `head${String(operationId)
      .replace(/^get/, '')
      .replace(/^./, (c) => c.toUpperCase())}`,
    summary: `Headers of: ${summary as string}`,
    responses: headResponses(getResponses as Json),
  };
}

/** Extension on a per-value operation: the templated path whose route serves it. */
export const PATH_VALUE_OF = 'x-path-value-of';

/**
 * A route whose body schema depends on a path parameter's value (PUT /config/{name}) is documented
 * once more for each value under its concrete path, which OpenAPI matches before the templated one.
 */
function perValueOperations(route: DocumentedRoute, documented: Json): [string, Json][] {
  const perValue = route.schema[PER_PATH_VALUE] as PerPathValue | undefined;
  if (!perValue) return [];
  return Object.entries(perValue.schemas).map(([value, valueSchema]) => {
    const concrete = { ...route, schema: { ...route.schema } };
    const schema = concrete.schema as Json;
    if (schema.body)
      schema.body = { ...(schema.body as Json), ...valueSchema, description: (schema.body as Json).description };
    if (schema.body && !valueSchema.examples) delete (schema.body as Json).examples;
    const response = { ...(schema.response as Record<string, Json>) };
    if (response[200] && !response[200].content)
      response[200] = { ...valueSchema, description: response[200].description };
    schema.response = response;
    const params = ((schema.params as Json | undefined)?.properties ?? {}) as Record<string, Json>;
    const { [perValue.parameter]: _p, ...otherParams } = params;
    schema.params = Object.keys(otherParams).length
      ? { ...(schema.params as Json), properties: otherParams }
      : undefined;
    const path = openApiPath(route.url.replace(`:${perValue.parameter}`, value));
    const op = operation(concrete);
    return [
      path,
      { ...op, operationId: `${documented.operationId as string}_${value}`, [PATH_VALUE_OF]: openApiPath(route.url) },
    ];
  });
}

/** `/api/v1/sensor/config/:name` → `/api/v1/sensor/config/{name}` */
export function openApiPath(url: string): string {
  return url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

export interface DocumentInfo {
  title: string;
  version: string;
  description: string;
  tags: { name: string; description: string }[];
}

export function buildOpenApiDocument(
  info: DocumentInfo,
  routes: readonly DocumentedRoute[],
  shared: readonly TSchema[],
): Json {
  const paths: Record<string, Json> = {};
  const add = (path: string, method: string, op: Json) => {
    paths[path] = { ...paths[path], [method]: op };
    if (method === 'get') paths[path] = { ...paths[path], head: headOperation(op) };
  };
  for (const route of routes) {
    const op = operation(route);
    add(openApiPath(route.url), route.method, op);
    for (const [path, concrete] of perValueOperations(route, op)) add(path, route.method, concrete);
  }
  const schemas = Object.fromEntries(shared.map((s) => [s.$id as string, toDocumentSchema(s)]));
  return {
    openapi: '3.1.0',
    info: { title: info.title, version: info.version, description: info.description },
    // No `jsonSchemaDialect`: the OAS 3.1 base dialect is the default, and declaring it makes Prism 5
    // validate nothing (its Ajv cannot compile the dialect; stoplightio/prism#2797).
    tags: info.tags,
    paths,
    components: { schemas },
  };
}
