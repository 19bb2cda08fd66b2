/**
 * The command lines the README and the docs show in their shell code blocks (```sh, ```bash, ```shell), as a
 * reader would paste them: a line continued with `\` is joined to the next, comment-only lines are left out.
 * Output belongs in a ```text block (or json, yaml): it is no command, and these tests do not run it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './repository-files.js';

export const PAGES = [
  'README.md',
  'CONTRIBUTING.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
  'deploy/firmware.md',
  'deploy/swarm/README.md',
];

export interface DocLine {
  page: string;
  /** The command as a reader pastes it (continuations joined, the trailing comment kept). */
  line: string;
  /** The block's language, '' for a bare fence. */
  language: string;
}

const SHELL = new Set(['sh', 'bash', 'shell']);

/** Every line of every fenced block of a page, with the block's language. */
function blocksOf(text: string): { language: string; lines: string[] }[] {
  return [...text.matchAll(/^```([\w-]*)\n([\s\S]*?)^```/gm)].map((m) => ({ language: m[1], lines: m[2].split('\n') }));
}

/** The lines of a block as commands: continuations joined, blank and comment-only lines left out. */
function commandsOf(lines: string[]): string[] {
  const commands: string[] = [];
  let pending = '';
  for (const raw of lines) {
    const line = pending ? `${pending} ${raw.trim()}` : raw.trim();
    if (/\\$/.test(line)) {
      pending = line.slice(0, -1).trimEnd();
      continue;
    }
    pending = '';
    if (line !== '' && !line.startsWith('#')) commands.push(line);
  }
  return commands;
}

export function docLines(pages: readonly string[] = PAGES): DocLine[] {
  return pages.flatMap((page) =>
    blocksOf(readFileSync(join(ROOT, page), 'utf8')).flatMap(({ language, lines }) =>
      SHELL.has(language) ? commandsOf(lines).map((line) => ({ page, line, language })) : [],
    ),
  );
}

/** Lines of bare fences (no language): layouts and such, which must not hide a command. */
export function bareBlockLines(pages: readonly string[] = PAGES): DocLine[] {
  return pages.flatMap((page) =>
    blocksOf(readFileSync(join(ROOT, page), 'utf8')).flatMap(({ language, lines }) =>
      language === '' ? lines.filter((l) => l.trim() !== '').map((line) => ({ page, line, language })) : [],
    ),
  );
}

/** A line without its trailing `# comment` (a `#` after whitespace, outside quotes). */
export function withoutComment(line: string): string {
  let quote = '';
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '#' && /\s/.test(line[i - 1] ?? '')) return line.slice(0, i).trimEnd();
  }
  return line;
}

/** The trailing comment of a line, '' when it has none. */
export function commentOf(line: string): string {
  return line.slice(withoutComment(line).length).replace(/^\s*#\s*/, '');
}

export interface SampleOutput {
  page: string;
  /** The last command of the shell block the sample follows. */
  command: string;
  /** The sample as the page shows it. */
  text: string;
}

/**
 * Every ```text block that follows a shell block (blank lines between allowed) is the output the page promises for
 * that block's last command: test/docs/doc-outputs.test.ts runs the command and compares.
 */
export function sampleOutputs(pages: readonly string[] = PAGES): SampleOutput[] {
  return pages.flatMap((page) => {
    const text = readFileSync(join(ROOT, page), 'utf8');
    const pairs = text.matchAll(/^```(?:sh|bash|shell)\n([\s\S]*?)^```\n(?:[ \t]*\n)*^```text\n([\s\S]*?)^```/gm);
    return [...pairs].map((m) => ({ page, command: commandsOf(m[1].split('\n')).at(-1) ?? '', text: m[2] }));
  });
}
