/**
 * What a route's request schema says beyond JSON Schema, read by the validation step
 * (routes/http/validator-compiler.ts) and the OpenAPI document: the part's own rules (`checkedBy`), a JSON-only
 * body (`jsonContentTypeOnly`), a byte stream (`contentMediaType`), and the schema Ajv compiles without these
 * `x-` marks. The lowest part of routes/: it imports nothing else of it. Route files take these through
 * api-schemas.ts.
 */
import type { TSchema } from '@sinclair/typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';

/**
 * Request parts checked by rules of their own as well as by their schema: the configuration (the
 * parameter registry's value rules, which name the parameter, the valid range and every failing field at
 * once), user data (413 past its size), the PTP profile, the network overrides, the alerts query, the legacy commands'
 * arguments. The route's validator runs the rules, then Ajv with the schema (see validator-compiler.ts), in
 * the validation step, and a refusal goes out through the same error path; the handler gets what the rules
 * return, typed `T`. The schema documents the part and is enforced.
 */
export const REQUEST_RULES = 'x-request-rules';

/** The rules of a request part: `part` as it arrived (undefined: absent) → its checked value; throws an ApiError. */
export type RequestRules<T> = (part: unknown, request: FastifyRequest) => T;

export function checkedBy<T>(schema: TSchema, rules: RequestRules<T>) {
  return Type.Unsafe<T>({ ...schema, [REQUEST_RULES]: rules });
}

export function requestRulesOf(schema: unknown): RequestRules<unknown> | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  const rules = (schema as Record<string, unknown>)[REQUEST_RULES];
  return typeof rules === 'function' ? (rules as RequestRules<unknown>) : undefined;
}

/**
 * A body the route reads as a stream of bytes (a firmware image, a zone set zip), as `contentMediaType`
 * declares it: there is no JSON document to validate, and its route checks it as it arrives.
 */
export function isByteStream(schema: unknown): boolean {
  if (typeof schema !== 'object' || schema === null) return false;
  const { type, contentMediaType } = schema as Record<string, unknown>;
  return type === 'string' && typeof contentMediaType === 'string' && contentMediaType !== 'application/json';
}

/**
 * The schema the unit's validator compiles: without our `x-` annotations (the document-only `enforced`
 * rules, the content-type declaration, the byte limit a JSON Schema cannot state), which Ajv's
 * strict mode would refuse as unknown keywords.
 */
export function ajvSchemaOf(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(ajvSchemaOf);
  if (typeof schema !== 'object' || schema === null) return schema;
  const record = schema as Record<string, unknown>;
  if (!Object.keys(record).some((key) => key.startsWith('x-')) && !JSON.stringify(record).includes('"x-'))
    return schema;
  return Object.fromEntries(
    Object.entries(record)
      .filter(([key]) => !key.startsWith('x-'))
      .map(([key, value]) => [key, ajvSchemaOf(value)]),
  );
}

/**
 * Declares that a route takes its body only as `Content-Type: application/json` (no text/plain, no form
 * type): the one declaration both the OpenAPI document (which lists only that type) and the validation step
 * (415 otherwise, validator-compiler.ts) read.
 */
export const JSON_CONTENT_TYPE_ONLY = 'x-json-content-type-only';
export function jsonContentTypeOnly<T extends TSchema>(schema: T): T {
  return { ...schema, [JSON_CONTENT_TYPE_ONLY]: true };
}

export function declaresJsonOnly(schema: unknown): boolean {
  return (
    typeof schema === 'object' &&
    schema !== null &&
    (schema as Record<string, unknown>)[JSON_CONTENT_TYPE_ONLY] === true
  );
}
