/**
 * Builds dist/ before the tests when any source is newer than the last build, so a plain
 * `npx vitest run` on a fresh clone passes: the CLI and end-to-end tests spawn dist/cli.js.
 * `npm test` builds first, and then this finds dist/ fresh and costs a directory walk.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BUILD_INPUTS = ['src', 'tsconfig.json', 'tsconfig.build.json', 'package.json'];

function newestMtimeMs(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newestMtimeMs(join(path, name))));
}

function builtAtMs(): number {
  try {
    return statSync(join(ROOT, 'dist', 'cli.js')).mtimeMs;
  } catch {
    return -1;
  }
}

export default function setup(): void {
  const sourcesMs = Math.max(...BUILD_INPUTS.map((input) => newestMtimeMs(join(ROOT, input))));
  if (builtAtMs() >= sourcesMs) return;
  execFileSync(
    process.execPath,
    [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
    {
      cwd: ROOT,
      stdio: 'inherit',
    },
  );
}
