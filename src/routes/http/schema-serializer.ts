/**
 * Serializers compiled from response schemas (fast-json-stringify, what Fastify itself uses), for
 * routes that compose a body from parts.
 */
import { fastJsonStringify } from './fast-json-stringify.js';
import type { TSchema } from '@sinclair/typebox';

export function schemaSerializer<T>(schema: TSchema): (value: T) => string {
  // Compiled on first use: the modules that declare these serializers load with the server, and compiling
  // them at start delayed the first answer, for routes that may never be asked.
  let serialize: ((value: T) => string) | undefined;
  return (value) => {
    serialize ??= fastJsonStringify()(schema) as (value: T) => string;
    return serialize(value);
  };
}
