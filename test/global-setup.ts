/**
 * Builds dist/ before the tests when any source is newer than the last build, so a plain
 * `npx vitest run` on a fresh clone passes: the CLI and end-to-end tests spawn dist/cli.js.
 * `npm test` builds first, and then this finds dist/ fresh and costs a directory walk.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The same staleness check and build steps as `npm start` (scripts/build-if-stale.mjs). */
export default function setup(): void {
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'build-if-stale.mjs')], { cwd: ROOT, stdio: 'inherit' });
}
