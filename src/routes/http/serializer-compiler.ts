/**
 * Response serializers as Fastify makes them (fast-json-stringify, shared schemas by `$id`), but
 * compiled on first use: every route documents its problem responses, which are always sent as
 * ready text (src/routes/http/problem.ts), so compiling their serializers at start-up would only cost time.
 */
import type fastJson from 'fast-json-stringify';
import type { FastifySerializerCompiler } from 'fastify';
import type { TObject } from '@sinclair/typebox';
import { fastJsonStringify } from './fast-json-stringify.js';

type Serializer = (data: unknown) => string;

/** `shared`: the schemas routes reference by `$id` (added to Fastify with `addSchema`). */
export function lazySerializerCompiler(shared: readonly TObject[]): FastifySerializerCompiler<fastJson.AnySchema> {
  // TypeBox objects are JSON Schema objects; fast-json-stringify's own types only lack TypeBox's symbol keys.
  const external = Object.fromEntries(shared.map((schema) => [schema.$id as string, schema as fastJson.Schema]));
  return ({ schema }) => {
    let serialize: Serializer | undefined;
    return (data) => {
      serialize ??= fastJsonStringify()(schema, { schema: external });
      return serialize(data);
    };
  };
}
