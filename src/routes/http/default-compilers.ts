/**
 * Fastify's own default schema compilers (what it builds when given none: @fastify/ajv-compiler and
 * @fastify/fast-json-stringify-compiler), required when Fastify first asks for one instead of when the
 * app is created. The sensor's routes set their own compilers (sensor-api.ts), so at a normal start
 * these two are never asked for and Ajv and fast-json-stringify stay unloaded (installed-package.ts).
 * Given as a `compilersFactory`, Fastify counts them as custom compilers; that only changes how it
 * treats header schemas of routes validated with them, and there are none.
 */
import type { FastifyServerOptions } from 'fastify';
import { installedPackage } from '../../first-use/index.js';

type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
/** Both packages' factories: (the app's shared schemas, its Ajv or serializer options) -> a compiler. */
type Factory = (externalSchemas: unknown, options: unknown) => unknown;

const ajvCompiler = installedPackage<{ AjvCompiler: () => Factory }>('@fastify/ajv-compiler', 'fastify');
const serializerCompiler = installedPackage<{ SerializerSelector: () => Factory }>(
  '@fastify/fast-json-stringify-compiler',
  'fastify',
);

export function lazyDefaultCompilers(): CompilersFactory {
  let validator: Factory | undefined;
  let serializer: Factory | undefined;
  const factories: Record<'buildValidator' | 'buildSerializer', Factory> = {
    buildValidator: (externalSchemas, options) => {
      validator ??= ajvCompiler().AjvCompiler();
      return validator(externalSchemas, options);
    },
    buildSerializer: (externalSchemas, options) => {
      serializer ??= serializerCompiler().SerializerSelector();
      return serializer(externalSchemas, options);
    },
  };
  return factories as CompilersFactory;
}
