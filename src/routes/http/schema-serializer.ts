/**
 * Serializers compiled from response schemas (fast-json-stringify, what Fastify itself uses), for
 * routes that compose a body from parts. `cachedSerializer` also remembers the text per object, for
 * parts that stay the same object while they do not change (PTP data sets, the tracking report).
 */
import fastJson from 'fast-json-stringify';
import type { TSchema } from '@sinclair/typebox';

export function schemaSerializer<T>(schema: TSchema): (value: T) => string {
  return fastJson(schema) as (value: T) => string;
}

export function cachedSerializer<T extends object>(schema: TSchema): (value: T) => string {
  const serialize = schemaSerializer<T>(schema);
  const texts = new WeakMap<T, string>();
  return (value) => {
    let text = texts.get(value);
    if (text === undefined) {
      text = serialize(value);
      texts.set(value, text);
    }
    return text;
  };
}
