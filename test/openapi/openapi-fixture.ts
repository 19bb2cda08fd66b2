/**
 * The served OpenAPI document and an Ajv (JSON Schema 2020-12, the OpenAPI 3.1 dialect) that
 * validates answers against the schemas it documents, `$ref`s into components included.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { FastifyInstance } from 'fastify';
import { isValidUdpDestination } from '../../src/config/config-formats.js';

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
