/**
 * The OpenAPI 3.1 document, built from the routes as they are registered: each route's own
 * schemas (params, querystring, body, response) become its parameters, request body and responses,
 * so the document cannot drift from what the server validates and sends. Shared schemas (with an
 * `$id`) become components, and their references are rewritten to point there.
 */
import type { RouteOptions } from 'fastify';
import type { TSchema } from '@sinclair/typebox';
import { isHandlerValidated, HANDLER_VALIDATED } from './api-schemas.js';

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
  const { description: _d, examples: _e, [HANDLER_VALIDATED]: _h, ...rest } = schema;
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
  delete documented[HANDLER_VALIDATED];
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

function requestBody(body: Json | undefined): Json | undefined {
  if (!body) return undefined;
  const note = isHandlerValidated(body) ? ' Validated by the unit, which names every failing field.' : '';
  return {
    required: true,
    description: `${(body.description as string | undefined) ?? 'Request body.'}${note}`,
    content: contentOf(body),
  };
}

function responses(response: Record<string, Json> | undefined): Json {
  const out: Json = {};
  for (const [status, schema] of Object.entries(response ?? {})) {
    const description = (schema.description as string | undefined) ?? 'Success';
    if (schema.type === 'null' && !schema.content) out[status] = { description };
    else out[status] = { description, content: contentOf(schema) };
  }
  return out;
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
    responses: responses(schema.response as Record<string, Json> | undefined),
  };
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
  for (const route of routes) {
    const path = openApiPath(route.url);
    paths[path] = { ...paths[path], [route.method]: operation(route) };
  }
  const schemas = Object.fromEntries(shared.map((s) => [s.$id as string, toDocumentSchema(s)]));
  return {
    openapi: '3.1.0',
    info: { title: info.title, version: info.version, description: info.description },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    tags: info.tags,
    paths,
    components: { schemas },
  };
}
