/**
 * The request validator of the sensor's routes: Fastify's own Ajv compiler, with no type coercion,
 * no defaults filled in, nothing removed and every error reported; except for request parts marked
 * `handlerValidated`, whose schemas document the request while the device core validates them with
 * its own messages. Each validator is compiled on the route's first request, not at start-up
 * (compiling every route's validators up front cost ~60 ms before the unit could answer).
 */
import { AjvCompiler } from '@fastify/ajv-compiler';
import type { FastifySchemaCompiler } from 'fastify';
import { isHandlerValidated, withoutDocumentOnly } from '../api-schemas.js';

const AJV_OPTIONS = { allErrors: true, removeAdditional: false, coerceTypes: false, useDefaults: false } as const;

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

export function requestValidatorCompiler(): RouteCompiler {
  // @fastify/ajv-compiler declares its compiler as taking a bare schema; Fastify calls it with the
  // route definition ({ schema, method, url, httpPart }), which is what FastifySchemaCompiler describes.
  let compile: RouteCompiler | undefined;
  return (route) => {
    if (isHandlerValidated(route.schema)) return acceptAll;
    return compiledOnFirstUse(() => {
      compile ??= AjvCompiler()({}, { customOptions: AJV_OPTIONS }) as unknown as RouteCompiler;
      return compile({ ...route, schema: withoutDocumentOnly(route.schema) } as typeof route) as Validator;
    });
  };
}
