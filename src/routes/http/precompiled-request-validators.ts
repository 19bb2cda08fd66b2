/**
 * The routes' request validators as the build compiled them ahead of time: @fastify/ajv-compiler's
 * standalone code for every schema a route validates its query string, path parameters or body with,
 * written by scripts/request-validators.mjs to dist/request-validators.cjs and keyed by the schema's
 * JSON (so a validator is only ever used for exactly the schema it was compiled from).
 *
 * Why: compiled on first use, the first request with a query string after every start (any route's)
 * loaded Ajv, its formats and Fastify's compiler and generated code, slowing that request and keeping more
 * memory for the rest of the run (docs/benchmarks.md, figures behind design choices). Running from the sources (tsx, vitest) there is no such
 * file, and validator-compiler.ts compiles as before.
 */
import type { FastifySchemaCompiler } from 'fastify';
import { builtFile } from '../../first-use/index.js';

type Validator = ReturnType<FastifySchemaCompiler<unknown>>;

const built = builtFile<Record<string, Validator | undefined>>('request-validators.cjs');

/** The build's validator of `schema`, or undefined. */
export function precompiledRequestValidator(schema: unknown): Validator | undefined {
  return built()?.[JSON.stringify(schema)];
}
