/** Issue 11 item 13: `npm start` compiles only when a source is newer than the build. */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { removeDir } from '../helpers/test-sensor.js';

const SCRIPT = resolve(import.meta.dirname, '../../scripts/build-if-stale.mjs');

/** A project tree with one source and one output, the output newer or older than the source. */
function project(outputNewer: boolean): string {
  const root = mkdtempSync(join(tmpdir(), 'sensor-build-'));
  mkdirSync(join(root, 'scripts'));
  mkdirSync(join(root, 'src'));
  mkdirSync(join(root, 'dist'));
  cpSync(SCRIPT, join(root, 'scripts', 'build-if-stale.mjs'));
  writeFileSync(join(root, 'src', 'cli.ts'), 'export {};\n');
  writeFileSync(join(root, 'tsconfig.json'), '{}');
  writeFileSync(join(root, 'dist', 'cli.js'), 'export {};\n');
  const now = Date.now() / 1000;
  utimesSync(join(root, 'src', 'cli.ts'), now - 100, now - 100);
  utimesSync(join(root, 'tsconfig.json'), now - 100, now - 100);
  utimesSync(join(root, 'dist', 'cli.js'), outputNewer ? now : now - 200, outputNewer ? now : now - 200);
  return root;
}

describe('build-if-stale', () => {
  it('an up-to-date build is used as it is', () => {
    const root = project(true);
    const run = spawnSync(process.execPath, [join(root, 'scripts', 'build-if-stale.mjs')], { encoding: 'utf8' });
    expect(run.status).toBe(0);
    expect(run.stderr).toBe('');
    removeDir(root);
  });

  it('a source newer than the build triggers the compiler', () => {
    const root = project(false);
    // There is no TypeScript in the temporary tree: the attempt to compile is what is checked.
    const run = spawnSync(process.execPath, [join(root, 'scripts', 'build-if-stale.mjs')], { encoding: 'utf8' });
    expect(run.stderr).toContain('compiling');
    expect(run.status).not.toBe(0);
    removeDir(root);
  });

  it('an old output tsc left behind (a moved source) does not make the build stale', () => {
    const root = project(true);
    writeFileSync(join(root, 'dist', 'moved-away.js'), 'export {};\n');
    const past = Date.now() / 1000 - 1000;
    utimesSync(join(root, 'dist', 'moved-away.js'), past, past);
    const run = spawnSync(process.execPath, [join(root, 'scripts', 'build-if-stale.mjs')], { encoding: 'utf8' });
    expect(run.status).toBe(0);
    expect(run.stderr).toBe('');
    removeDir(root);
  });

  // A fresh clone has no build at all: "sources changed since the last build" named a build that never was.
  it('a clone without a build says it builds for the first time', () => {
    const root = project(true);
    removeDir(join(root, 'dist'));
    const run = spawnSync(process.execPath, [join(root, 'scripts', 'build-if-stale.mjs')], { encoding: 'utf8' });
    expect(run.stderr).toMatch(/^lidar-sensor: no build yet; compiling \(npm run build\)/);
    expect(run.stderr).not.toContain('changed');
    removeDir(root);
  });
});
