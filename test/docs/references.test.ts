/**
 * Every document the code, tests, scripts and docs name resolves inside the repository: a comment citing
 * `docs/udp-packets.md, Columns` must lead a reader with only this repository to that page. Links are checked
 * by links.test.ts; this checks every mention of a `.md` file, in code comments and prose alike.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, repositoryFiles } from './repository-files.js';

const root = ROOT;

/** This file's own examples name documents that do not exist, on purpose. */
const SELF = relative(root, import.meta.filename);
const files = repositoryFiles().filter((file) => file !== SELF);

/** `docs/udp-packets.md`, `../beside/docs/NOTES.md`, `udp-packets.md#columns`: each mention of a Markdown file. */
function mentionedDocs(text: string): string[] {
  const withoutUrls = text.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s)>'"`]+/gi, '');
  return [...withoutUrls.matchAll(/(?<![\w./%-])((?:\.{1,2}\/|[\w-]+\/)*[\w.-]*[\w-]\.md)(?![\w-])/g)].map((m) => m[1]);
}

/**
 * Where a mention may point: a path from the repository's root, or from the file's folder when it is written
 * as one (`../../README.md`) or sits in a Markdown page (where a bare name is a relative link). Never outside
 * the repository: a folder beside the checkout is not there for the people who read it.
 */
function resolves(file: string, mention: string): boolean {
  const relativeToFile = file.endsWith('.md') || mention.startsWith('.');
  const bases = relativeToFile ? [root, resolve(root, dirname(file))] : [root];
  return bases.some((base) => {
    const absolute = resolve(base, mention);
    return !relative(root, absolute).startsWith('..') && existsSync(absolute);
  });
}

describe('references to documents', () => {
  it('reads the code and the docs', () => {
    expect(files).toContain('src/main/cli.ts');
    expect(files).toContain('docs/architecture.md');
  });

  it('recognises what a mention looks like', () => {
    expect(mentionedDocs('see udp-packets.md, Sizes; ../beside/docs/NOTES.md (`docs/x.md#a`)')).toEqual([
      'udp-packets.md',
      '../beside/docs/NOTES.md',
      'docs/x.md',
    ]);
    expect(mentionedDocs('https://github.com/o/r/blob/main/README.md, foo.mdx, /..%2fREADME.md')).toEqual([]);
  });

  it.each(files)('%s names only documents of this repository', (file) => {
    const text = readFileSync(join(root, file), 'utf8');
    const unresolved = mentionedDocs(text).filter((mention) => !resolves(file, mention));
    expect(unresolved, `documents ${file} names that are not in the repository`).toEqual([]);
  });
});
