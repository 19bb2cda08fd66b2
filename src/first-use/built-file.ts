/**
 * A CommonJS file that the build writes beside the CLI's bundle (dist/), required on first use.
 * Running from the sources (tsx, vitest) there is no such file beside this module: null then, and the
 * caller does without (each caller says how).
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const requireHere = createRequire(import.meta.url);

/** `fileName`'s exports, required on the first call (and kept); null when the build wrote none. */
export function builtFile<T>(fileName: string): () => T | null {
  // Resolved from this module's URL: in the bundle that is dist/, in the sources this folder.
  const path = fileURLToPath(new URL(`./${fileName}`, import.meta.url));
  let exports: T | null | undefined;
  return () => {
    exports ??= existsSync(path) ? (requireHere(path) as T) : null;
    return exports;
  };
}
