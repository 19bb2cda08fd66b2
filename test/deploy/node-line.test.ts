/**
 * One Node.js line for the device: the line in .nvmrc is what the Debian package bundles and CI runs the suite on;
 * the Dockerfile's default base must be of the same line, and `engines` must admit it and no line past its end of life.
 * `npm ci` on a line `engines` does not admit stops at once with npm's own error, before it installs anything (a
 * native module built for an unsupported runtime fails later and far less clearly).
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const line = read('.nvmrc').trim();

describe('the Node.js line', () => {
  it('.nvmrc names one major line', () => {
    expect(line).toMatch(/^\d+$/);
  });

  it("is the Dockerfile's default base", () => {
    const base = /^ARG NODE_IMAGE=node:(\d+)-/m.exec(read('Dockerfile'))?.[1];
    expect(base).toBe(line);
  });

  it('is admitted by engines, whose floor is 22 (Node 20 reached its end of life on 2026-04-30)', () => {
    const engines = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node;
    expect(engines).toBe('>=22');
    expect(Number(line)).toBeGreaterThanOrEqual(22);
  });

  it('npm ci on a Node.js that engines does not admit stops with EBADENGINE, naming the required line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'engine-strict-'));
    try {
      for (const file of ['package.json', 'package-lock.json', '.npmrc'])
        copyFileSync(join(ROOT, file), join(dir, file));
      // npm reads the running Node.js's version from process.version: a preload makes this one claim to be Node 20.
      writeFileSync(
        join(dir, 'claim-node-20.cjs'),
        "Object.defineProperty(process, 'version', { value: 'v20.20.2' });\n",
      );
      const npmCi = (nodeOptions: string) =>
        spawnSync('npm', ['ci', '--dry-run', '--ignore-scripts', '--no-audit', '--no-fund'], {
          cwd: dir,
          encoding: 'utf8',
          env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH}`, NODE_OPTIONS: nodeOptions },
        });
      const refused = npmCi(`--require ${join(dir, 'claim-node-20.cjs')}`);
      expect(refused.status, refused.stdout).not.toBe(0);
      expect(refused.stderr).toContain('EBADENGINE');
      expect(refused.stderr).toContain('Required: {"node":">=22"}');
      expect(refused.stderr).toContain('"node":"v20.20.2"');
      const admitted = npmCi('');
      expect(admitted.status, admitted.stderr).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
