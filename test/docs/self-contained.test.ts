/**
 * A clone of the repository is all a user needs: no code, test, script, benchmark, deployment or page reaches
 * for a path outside it (a reference folder beside the checkout, a machine's own folders). A relative path is read from
 * its file's folder, as `resolve(import.meta.dirname, …)`, `new URL(…, import.meta.url)` and Markdown links do, and
 * from the repository's root, as scripts and commands run from there do; it must stay inside from one of them.
 */
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, repositoryFiles } from './repository-files.js';

/** `../x`, `../../elsewhere/data`: each relative path that climbs, with what follows it. */
function climbingPaths(text: string): string[] {
  return [...text.matchAll(/(?<![\w.$}-])((?:\.\.\/)+(?:[\w.-]+\/?)*)/g)].map((m) => m[1]);
}

/** Names of places outside any checkout: the reference folder beside it, this machine's work folder. */
const OUTSIDE = /(?<![\w/.-])(?:\.\.\/)*shared\/(?:data|docs|spec|hooks)\b|\/work\/(?:main|shared)\b/;

function escapes(file: string, path: string): boolean {
  const stays = (base: string) => !relative(ROOT, resolve(base, path)).startsWith('..');
  return !stays(resolve(ROOT, dirname(file))) && !stays(ROOT);
}

const SELF = relative(ROOT, import.meta.filename);
const files = repositoryFiles().filter((file) => file !== SELF);

/** The reference folder's name, put together here so that this file does not itself name a path outside. */
const BESIDE = ['..', 'shared'].join('/');

describe('the repository is self-contained', () => {
  it('recognises a path that leaves it', () => {
    expect(climbingPaths(`resolve(import.meta.dirname, '../../${BESIDE}/data/recordings')`)).toEqual([
      `../../${BESIDE}/data/recordings`,
    ]);
    expect(escapes('test/x/y.test.ts', `../../${BESIDE}/data`)).toBe(true);
    expect(escapes('test/x/y.test.ts', '../../docs/replay.md')).toBe(false);
    expect(OUTSIDE.test(`the samples in ${BESIDE}/data/recordings`)).toBe(true);
    expect(OUTSIDE.test('deploy/shared/x')).toBe(false);
  });

  it.each(files)('%s refers to nothing outside the repository', (file) => {
    const text = readFileSync(resolve(ROOT, file), 'utf8');
    const outside = climbingPaths(text).filter((path) => escapes(file, path));
    const named = text.split('\n').filter((line) => OUTSIDE.test(line));
    expect([...outside, ...named], `${file} refers outside the repository`).toEqual([]);
  });
});
