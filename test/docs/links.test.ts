/**
 * Every relative link of the project's prose resolves to a file inside the repository: the README, CONTRIBUTING,
 * CHANGELOG and every page under docs/ and deploy/ are read by users who have only this repository.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

function markdownFiles(folder: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(join(root, folder), { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) found.push(...markdownFiles(path));
    else if (entry.name.endsWith('.md')) found.push(path);
  }
  return found;
}

const pages = [
  ...['README.md', 'CONTRIBUTING.md', 'CHANGELOG.md'].filter((file) => existsSync(join(root, file))),
  ...markdownFiles('docs'),
  ...markdownFiles('deploy'),
];

/** Inline links and images `[text](target)`, and reference definitions `[id]: target`. */
function linkTargets(markdown: string): string[] {
  const withoutCode = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  const inline = [...withoutCode.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)];
  const references = [...withoutCode.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?\s*$/gm)];
  return [...inline, ...references].map((match) => match[1]);
}

function isExternal(target: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#');
}

describe('documentation links', () => {
  it('finds the pages it checks', () => {
    expect(pages).toContain('README.md');
    expect(pages.length).toBeGreaterThan(5);
  });

  it.each(pages)('%s: every relative link resolves inside the repository', (page) => {
    const broken: string[] = [];
    for (const target of linkTargets(readFileSync(join(root, page), 'utf8'))) {
      if (isExternal(target)) continue;
      const file = decodeURIComponent(target.split('#')[0]);
      const absolute = resolve(root, dirname(page), file);
      const inside = !relative(root, absolute).startsWith('..');
      if (!inside || !existsSync(absolute)) broken.push(target);
    }
    expect(broken, `links of ${page} that do not resolve inside the repository`).toEqual([]);
  });
});
