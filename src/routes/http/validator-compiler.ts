/**
 * The request validator of the sensor's routes: Fastify's own Ajv compiler, with no type coercion,
 * no defaults filled in, nothing removed and every error reported, for every schema that describes a
 * request part. A part with rules of its own (`checkedBy`) is checked by them first (their answers name
 * the valid range, or say 413), then by Ajv; a body declared JSON-only (`jsonContentTypeOnly`) is refused
 * 415 under any other Content-Type before either; a byte stream is read and checked by its route. Each
 * validator is the one the build compiled ahead of time for its schema
 * (precompiled-request-validators.ts), else compiled on the route's first request, not at start-up
 * (compiling every route's validators up front delayed the unit's first answer). The query
 * string of a route that takes no parameter is checked without Ajv (`noParameters`).
 */
import type { FastifyRequest, FastifySchemaCompiler } from 'fastify';
import { CONFIG_FORMATS } from '../../config/index.js';
import { ApiError } from '../../model/index.js';
import { installedPackage } from '../../first-use/index.js';
import {
  ajvSchemaOf,
  declaresJsonOnly,
  isByteStream,
  type RequestRules,
  requestRulesOf,
} from '../schemas/request-marks.js';
import { requireJsonContentType } from './json-body.js';
import { precompiledRequestValidator } from './precompiled-request-validators.js';

/** Required on the first compile (installed-package.ts says why). */
const ajvCompiler = installedPackage<typeof import('@fastify/ajv-compiler')>('@fastify/ajv-compiler');

/** @fastify/ajv-compiler's options for the routes (the build compiles ahead of time with the same). */
export const ROUTE_AJV_OPTIONS = {
  allErrors: true,
  removeAdditional: false,
  coerceTypes: false,
  useDefaults: false,
  // The configuration's value schemas name it (udp_dest): the same definition the registry validates with.
  formats: CONFIG_FORMATS,
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

/** What a part declares besides its schema: rules of its own, and whether a body must be JSON-typed. */
interface PartChecks {
  rules: RequestRules<unknown> | undefined;
  jsonOnly: boolean;
}

/**
 * The validator of a part with checks besides its schema. Fastify hands a validator that has `schemaEnv` the
 * request (as `parentData`): the rules see the part as it arrived, a missing body told from a JSON `null`, and
 * the request's other parts (its path parameters are checked first). Then Ajv checks the part against its
 * schema, so that what the schema refuses is refused even where the rules would let it through. What the rules
 * return replaces the part; their ApiError is the answer, through the error path every validation error takes.
 */
function checkedPart({ rules, jsonOnly }: PartChecks, ajv: Validator): Validator {
  const validate = (data: unknown, context?: { parentData: FastifyRequest; parentDataProperty: 'body' }) => {
    const request = context?.parentData as FastifyRequest;
    const part = context?.parentDataProperty ?? 'body';
    let value: unknown;
    try {
      if (jsonOnly) requireJsonContentType(request);
      value = rules ? rules(request[part], request) : data;
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      // Fastify keeps a status already set; without it the answer would be a 400 whatever the rule said.
      return { error: Object.assign(error, { statusCode: error.status }) };
    }
    const valid = ajv(data);
    // Fastify reads the errors of a `false` from the function it was given.
    (validate as unknown as Validator).errors = ajv.errors;
    return valid ? { value } : false;
  };
  return Object.assign(validate, { schemaEnv: true }) as unknown as Validator;
}

export function requestValidatorCompiler(): RouteCompiler {
  // @fastify/ajv-compiler declares its compiler as taking a bare schema; Fastify calls it with the
  // route definition ({ schema, method, url, httpPart }), which is what FastifySchemaCompiler describes.
  let compile: RouteCompiler | undefined;
  return (route) => {
    if (isByteStream(route.schema)) return acceptAll;
    const schema = ajvSchemaOf(route.schema);
    for (const listener of schemaListeners) listener(schema);
    const ajv = compiledOnFirstUse(() => {
      const ahead = precompiledRequestValidator(schema);
      if (ahead) return ahead;
      compile ??= ajvCompiler().AjvCompiler()({}, { customOptions: ROUTE_AJV_OPTIONS }) as unknown as RouteCompiler;
      return compile({ ...route, schema } as typeof route) as Validator;
    });
    const checks = { rules: requestRulesOf(route.schema), jsonOnly: declaresJsonOnly(route.schema) };
    if (checks.rules || checks.jsonOnly) return checkedPart(checks, ajv);
    return isClosedEmptyObject(route.schema) ? noParameters(ajv) : ajv;
  };
}
