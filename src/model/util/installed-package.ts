/**
 * A package required from node_modules when first used instead of when the module naming it loads.
 * Why: Ajv and fast-json-stringify (with @fastify/ajv-compiler and its formats and URI parser) were
 * 0.4 MB of the bundle's start-up code, evaluated at every start (plus an Ajv instance built) while a
 * unit compiles a schema only on the first request that needs one; out of the bundle they are neither
 * read, compiled nor kept in the heap until then. The first such request loads them (tens of ms, once).
 * Resolved from this module's file: src/model/util/ under tsx, dist/ in the bundle; both find the
 * package's node_modules.
 */
import { createRequire } from 'node:module';

const requireInstalled = createRequire(import.meta.url);

/**
 * `name`'s exports, required on the first call; `via`: the package whose own dependency it is (resolved
 * from there, as that package would require it).
 */
export function installedPackage<T>(name: string, via?: string): () => T {
  let exports: T | undefined;
  return () => {
    exports ??= (via ? createRequire(requireInstalled.resolve(via)) : requireInstalled)(name) as T;
    return exports;
  };
}
