/** The version of this server: package.json's, which the build and the Docker image both carry. */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * package.json is two levels above this module in `src/main/` and tsc's `dist/main/`, one above the
 * bundled `dist/cli.js` (scripts/bundle.mjs).
 */
export function packageVersion(): string {
  const path =
    ['../../package.json', '../package.json']
      .map((relative) => fileURLToPath(new URL(relative, import.meta.url)))
      .find((candidate) => existsSync(candidate)) ?? fileURLToPath(new URL('../../package.json', import.meta.url));
  return (JSON.parse(readFileSync(path, 'utf8')) as { version: string }).version;
}
