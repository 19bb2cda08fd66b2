#!/usr/bin/env node
// `npm start`'s pre-step: compile TypeScript only when a source is newer than the build, so a
// second start takes about a second instead of a full compile. Plain JavaScript: runs without tsx.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const INPUTS = ['src', 'tsconfig.json', 'tsconfig.build.json', 'scripts/bundle.mjs'];

function mtimes(path, pick) {
  if (!existsSync(path)) return [];
  const stat = statSync(path);
  if (!stat.isDirectory()) return pick(path) ? [stat.mtimeMs] : [];
  return readdirSync(path).flatMap((name) => mtimes(join(path, name), pick));
}

const newestInput = Math.max(...INPUTS.flatMap((p) => mtimes(join(root, p), () => true)));
// The bundle's dist/cli.js is written last: its time is when the last complete build ended. (Not the
// oldest file of dist/: tsc leaves the outputs of deleted or moved sources behind.)
const cli = join(root, 'dist', 'cli.js');
const built = existsSync(cli) ? statSync(cli).mtimeMs : -Infinity;

if (newestInput > built) {
  const why = existsSync(cli) ? 'sources changed since the last build' : 'no build yet';
  process.stderr.write(`lidar-sensor: ${why}; compiling (npm run build)…\n`);
  // The same two steps as `npm run build`: tsc, then the bundle of the CLI and the worker.
  const steps = [
    [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
    [join(root, 'scripts', 'bundle.mjs')],
  ];
  for (const args of steps) {
    const step = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
    if (step.status !== 0) process.exit(step.status ?? 1);
  }
}
