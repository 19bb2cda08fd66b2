/**
 * One Node.js line for the device: the line in .nvmrc is what the Debian package bundles and CI runs the suite on;
 * the Dockerfile's default base must be of the same line, and `engines` must admit it and no line past its end of life.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
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
});
