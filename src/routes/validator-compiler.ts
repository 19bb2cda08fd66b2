/**
 * The request validator of the sensor's routes: Fastify's own Ajv compiler, with no type coercion,
 * no defaults filled in, nothing removed and every error reported; except for request parts marked
 * `handlerValidated`, whose schemas document the request while the device core validates them with
 * its own messages.
 */
import { AjvCompiler } from '@fastify/ajv-compiler';
import type { FastifySchemaCompiler } from 'fastify';
import { isHandlerValidated } from './api-schemas.js';

const AJV_OPTIONS = { allErrors: true, removeAdditional: false, coerceTypes: false, useDefaults: false } as const;

type RouteCompiler = FastifySchemaCompiler<unknown>;

const acceptAll = () => true;

export function requestValidatorCompiler(): RouteCompiler {
  // @fastify/ajv-compiler declares its compiler as taking a bare schema; Fastify calls it with the
  // route definition ({ schema, method, url, httpPart }), which is what FastifySchemaCompiler describes.
  const compile = AjvCompiler()({}, { customOptions: AJV_OPTIONS }) as unknown as RouteCompiler;
  return (route) => (isHandlerValidated(route.schema) ? acceptAll : compile(route));
}
