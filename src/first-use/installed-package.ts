/**
 * A package required when first used instead of when the module naming it loads: the schema compilers
 * and the zone set zip reader (scripts/bundle.mjs lists them, and why each is there).
 * Why, for the first of them: Ajv and fast-json-stringify (with @fastify/ajv-compiler and its formats and URI parser) were
 * a large part of the bundle's start-up code (docs/benchmarks.md, figures behind design choices), evaluated at every start (plus an Ajv instance built) while a
 * unit compiles a schema only on the first request that needs one; outside the start-up chunks they are
 * neither read, compiled nor kept in the heap until then.
 * The build bundles these packages into one CommonJS file beside the CLI (scripts/bundle.mjs): from
 * node_modules they were some 80 files through Node's CommonJS loader on that first request. Running from
 * the sources (tsx, vitest) there is no such file, and the package comes from node_modules.
 */
import { createRequire } from 'node:module';
import { builtFile } from './built-file.js';

const requireHere = createRequire(import.meta.url);

/** Each package's exports by name, required on the first call (scripts/bundle.mjs writes it). */
const bundled = builtFile<Record<string, (() => unknown) | undefined>>('first-use-packages.cjs');

/**
 * `name`'s exports, required on the first call; `via`: the package whose own dependency it is (resolved
 * from there, as that package would require it).
 */
export function installedPackage<T>(name: string, via?: string): () => T {
  let exports: T | undefined;
  return () => {
    exports ??= (bundled()?.[name]?.() ?? (via ? createRequire(requireHere.resolve(via)) : requireHere)(name)) as T;
    return exports;
  };
}
