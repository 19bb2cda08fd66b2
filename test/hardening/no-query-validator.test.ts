/**
 * The query string of a route without parameters is checked without Ajv (validator-compiler.ts
 * `noParameters`): its answers must be Ajv's own, error for error, and a route with parameters must
 * still go through Ajv.
 */
import { AjvCompiler } from '@fastify/ajv-compiler';
import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { isClosedEmptyObject, requestValidatorCompiler } from '../../src/routes/http/validator-compiler.js';

const NO_QUERY = Type.Object({}, { additionalProperties: false });
const AJV_OPTIONS = { allErrors: true, removeAdditional: false, coerceTypes: false, useDefaults: false };

type Validate = ((data: unknown) => boolean) & { errors?: unknown };

function route(schema: unknown, url: string) {
  return { schema, method: 'GET', url, httpPart: 'querystring' } as never;
}

describe('the query validator of a route without parameters', () => {
  it('recognizes exactly the closed empty object', () => {
    expect(isClosedEmptyObject(NO_QUERY)).toBe(true);
    expect(isClosedEmptyObject({ type: 'object', properties: {}, additionalProperties: false })).toBe(true);
    expect(isClosedEmptyObject(Type.Object({}))).toBe(false);
    expect(isClosedEmptyObject(Type.Object({ a: Type.String() }, { additionalProperties: false }))).toBe(false);
    expect(isClosedEmptyObject({ type: 'object', properties: {}, additionalProperties: false, required: ['a'] })).toBe(
      false,
    );
    expect(isClosedEmptyObject({ type: 'object', properties: {}, additionalProperties: false, minProperties: 1 })).toBe(
      false,
    );
    expect(isClosedEmptyObject(null)).toBe(false);
  });

  it("answers every input as Ajv's compiled validator does, errors included", () => {
    const ours = requestValidatorCompiler()(route(NO_QUERY, '/ours')) as Validate;
    const ajv = (AjvCompiler()({}, { customOptions: AJV_OPTIONS }) as unknown as (r: unknown) => Validate)(
      route(NO_QUERY, '/ajv'),
    );
    const nullPrototype = Object.assign(Object.create(null) as object, { persit: 'true', x: '' });
    const inputs: unknown[] = [
      {},
      Object.create(null),
      { persit: 'true' },
      { a: '1', b: ['2', '3'], c: '' },
      nullPrototype,
      { __proto__: null, 'a b': '1' },
      [],
      ['a'],
      'a=1',
      42,
      null,
      true,
    ];
    for (const input of inputs) {
      const expected = ajv(input);
      const expectedErrors = JSON.stringify(ajv.errors);
      expect({ input, valid: ours(input), errors: JSON.stringify(ours.errors) }).toEqual({
        input,
        valid: expected,
        errors: expectedErrors,
      });
    }
  });

  it('leaves a query string with parameters to Ajv', () => {
    const validate = requestValidatorCompiler()(
      route(Type.Object({ flag: Type.String({ enum: ['true', 'false'] }) }, { additionalProperties: false }), '/q'),
    ) as Validate;
    expect(validate({ flag: 'maybe' })).toBe(false);
    expect(JSON.stringify(validate.errors)).toContain('allowedValues');
    expect(validate({ flag: 'true' })).toBe(true);
  });
});
