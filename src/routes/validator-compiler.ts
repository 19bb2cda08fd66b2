/**
 * Fastify's own Ajv validator factory, except for request parts marked `handlerValidated`: those
 * schemas document the request, and the device core validates them with its own messages.
 */
import { AjvCompiler } from '@fastify/ajv-compiler';
import type { FastifySchemaCompiler } from 'fastify';
import { isHandlerValidated } from './api-schemas.js';

const acceptAll = () => true;

type FastifyValidatorFactory = ReturnType<typeof AjvCompiler>;
// @fastify/ajv-compiler declares the pool's compiler as taking a bare schema; Fastify calls it with
// the route definition ({ schema, method, url, httpPart }), which is what FastifySchemaCompiler describes.
type RouteCompiler = FastifySchemaCompiler<unknown>;

const buildFastifyValidator = AjvCompiler();

export const buildValidator: FastifyValidatorFactory = (externalSchemas, options) => {
  const compile = buildFastifyValidator(externalSchemas, options) as unknown as RouteCompiler;
  const compileRoute: RouteCompiler = (route) => (isHandlerValidated(route.schema) ? acceptAll : compile(route));
  return compileRoute as unknown as ReturnType<FastifyValidatorFactory>;
};
