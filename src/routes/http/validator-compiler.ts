/**
 * The request validator of the sensor's routes: Fastify's own Ajv compiler, with no type coercion,
 * no defaults filled in, nothing removed and every error reported; a request part with rules of its
 * own (`checkedBy`) is checked by them instead, and a byte stream is read and checked by its route. Each validator is the one the build compiled ahead of time for its schema
 * (precompiled-request-validators.ts), else compiled on the route's first request, not at start-up
 * (compiling every route's validators up front delayed the unit's first answer). The query
 * string of a route that takes no parameter is checked without Ajv (`noParameters`).
 */
import type { FastifyRequest, FastifySchemaCompiler } from 'fastify';
import { ApiError, installedPackage } from '../../model/index.js';
import { isByteStream, type RequestRules, requestRulesOf, withoutDocumentOnly } from '../api-schemas.js';
import { precompiledRequestValidator } from './precompiled-request-validators.js';

/** Required on the first compile (installed-package.ts says why). */
const ajvCompiler = installedPackage<typeof import('@fastify/ajv-compiler')>('@fastify/ajv-compiler');

/** @fastify/ajv-compiler's options for the routes (the build compiles ahead of time with the same). */
export const ROUTE_AJV_OPTIONS = {
  allErrors: true,
  removeAdditional: false,
  coerceTypes: false,
  useDefaults: false,
} as const;

/**
 * Told of every schema the routes validate with, as Fastify hands them over: the build lists them so to
 * compile them ahead of time (scripts/request-validators.mjs). None at run time.
 */
const schemaListeners: ((schema: unknown) => void)[] = [];

export function onRequestSchema(listener: (schema: unknown) => void): void {
  schemaListeners.push(listener);
}

type RouteCompiler = FastifySchemaCompiler<unknown>;

const acceptAll = () => true;

type Validator = ReturnType<RouteCompiler>;

/**
 * A validator that compiles itself when first called. Fastify reads `errors` from the function it was
 * given after a `false`, so the compiled validator's errors are copied onto it. (Without Ajv's
 * `schemaEnv` Fastify does not offer the parent object for root mutations: none are configured.)
 */
function compiledOnFirstUse(compileNow: () => Validator): Validator {
  let compiled: Validator | undefined;
  const validate: Validator = (data: unknown) => {
    compiled ??= compileNow();
    const result = compiled(data);
    validate.errors = compiled.errors;
    return result;
  };
  return validate;
}

/**
 * Whether `schema` is exactly `{ type: 'object', properties: {}, additionalProperties: false }`: the
 * query string of every route without query parameters (query-policy.ts), most GETs among them.
 */
export function isClosedEmptyObject(schema: unknown): boolean {
  if (typeof schema !== 'object' || schema === null) return false;
  const { type, properties, additionalProperties, ...rest } = schema as Record<string, unknown>;
  return (
    type === 'object' &&
    additionalProperties === false &&
    typeof properties === 'object' &&
    properties !== null &&
    Object.keys(properties).length === 0 &&
    Object.keys(rest).length === 0
  );
}

/**
 * What Ajv compiles `{ type: 'object', properties: {}, additionalProperties: false }` into (allErrors:
 * one error per key, in the object's order, the same error objects), written out: the first request
 * of a unit, a GET without parameters, no longer builds Ajv (its first compile, meta-schema included,
 * slowed the first answer: docs/benchmarks.md, figures behind design choices). Anything but a plain object goes to `ajv` (compiled on
 * its first use).
 */
export function noParameters(ajv: Validator): Validator {
  const validate: Validator = (data: unknown) => {
    if (typeof data !== 'object' || data === null || Array.isArray(data)) {
      const result = ajv(data);
      validate.errors = ajv.errors;
      return result;
    }
    let errors: NonNullable<Validator['errors']> | null = null;
    for (const key in data) {
      errors ??= [];
      errors.push({
        instancePath: '',
        schemaPath: '#/additionalProperties',
        keyword: 'additionalProperties',
        params: { additionalProperty: key },
        message: 'must NOT have additional properties',
      });
    }
    validate.errors = errors;
    return errors === null;
  };
  return validate;
}

/**
 * The validator of a part with rules of its own. Fastify hands a validator that has `schemaEnv` the request
 * (as `parentData`): the rules see the part as it arrived, a missing body told from a JSON `null`, and
 * the request's other parts (its path parameters are checked first). What they return replaces the part;
 * their ApiError is the answer, through the error path every validation error takes.
 */
function rulesValidator(rules: RequestRules<unknown>): Validator {
  const validate = (_data: unknown, context?: { parentData: FastifyRequest; parentDataProperty: 'body' }) => {
    const request = context?.parentData as FastifyRequest;
    const part = context?.parentDataProperty ?? 'body';
    try {
      return { value: rules(request[part], request) };
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      // Fastify keeps a status already set; without it the answer would be a 400 whatever the rule said.
      return { error: Object.assign(error, { statusCode: error.status }) };
    }
  };
  return Object.assign(validate, { schemaEnv: true }) as unknown as Validator;
}

export function requestValidatorCompiler(): RouteCompiler {
  // @fastify/ajv-compiler declares its compiler as taking a bare schema; Fastify calls it with the
  // route definition ({ schema, method, url, httpPart }), which is what FastifySchemaCompiler describes.
  let compile: RouteCompiler | undefined;
  return (route) => {
    const rules = requestRulesOf(route.schema);
    if (rules) return rulesValidator(rules);
    if (isByteStream(route.schema)) return acceptAll;
    for (const listener of schemaListeners) listener(withoutDocumentOnly(route.schema));
    const ajv = compiledOnFirstUse(() => {
      const schema = withoutDocumentOnly(route.schema);
      const ahead = precompiledRequestValidator(schema);
      if (ahead) return ahead;
      compile ??= ajvCompiler().AjvCompiler()({}, { customOptions: ROUTE_AJV_OPTIONS }) as unknown as RouteCompiler;
      return compile({ ...route, schema } as typeof route) as Validator;
    });
    return isClosedEmptyObject(route.schema) ? noParameters(ajv) : ajv;
  };
}
