#!/usr/bin/env node
// `npm start`'s pre-step: compile TypeScript only when a source is newer than the build, so a
// second start takes about a second instead of a full compile. Plain JavaScript: runs without tsx.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const INPUTS = ['src', 'tsconfig.json', 'tsconfig.build.json'];

function mtimes(path, pick) {
  if (!existsSync(path)) return [];
  const stat = statSync(path);
  if (!stat.isDirectory()) return pick(path) ? [stat.mtimeMs] : [];
  return readdirSync(path).flatMap((name) => mtimes(join(path, name), pick));
}

const newestInput = Math.max(...INPUTS.flatMap((p) => mtimes(join(root, p), () => true)));
// tsc rewrites every output, so the oldest output is when the last build ran.
const outputs = mtimes(join(root, 'dist'), (p) => p.endsWith('.js'));
const built = outputs.length > 0 ? Math.min(...outputs) : -Infinity;

if (newestInput > built) {
  process.stderr.write('lidar-sensor: sources changed since the last build; compiling (npm run build)…\n');
  const tsc = spawnSync(
    process.execPath,
    [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
    {
      cwd: root,
      stdio: 'inherit',
    },
  );
  process.exit(tsc.status ?? 1);
}
