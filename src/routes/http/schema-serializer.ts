/**
 * Serializers compiled from response schemas (fast-json-stringify, what Fastify itself uses), for
 * routes that compose a body from parts.
 */
import fastJson from 'fast-json-stringify';
import type { TSchema } from '@sinclair/typebox';

export function schemaSerializer<T>(schema: TSchema): (value: T) => string {
  return fastJson(schema) as (value: T) => string;
}
