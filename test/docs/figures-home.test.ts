/**
 * Every measured figure has one home, docs/benchmarks.md (the latest run, dated) and, for history, CHANGELOG.md.
 * Elsewhere a page, manifest or code comment links to the row instead of copying it, because copies drift apart.
 * This catches the common forms of a copied measurement: a before → after with units, "measured" next to a
 * figure, a ratio to bare Fastify, a figure "on this machine", a figure something "took", "costs" or is "about",
 * a typical figure; and history in shipped code ("issue 34").
 * Settings (a 10 s timeout, a 256 KB slab) and facts computed from a format (4 MB for a frame) are not measurements.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, repositoryFiles } from './repository-files.js';

const HOMES = new Set(['docs/benchmarks.md', 'CHANGELOG.md']);
/** The bench's own tests feed it made-up tables of figures. */
const FIXTURES = /^test\/bench\//;
/** A number or a range of numbers, and a unit a measurement carries. */
const N = String.raw`\d[\d.,]*(?:\s*[-–]\s*\d[\d.,]*)?`;
const U = '(?:ms|µs|us|ns|s|MB|MiB|KB|kB|KiB|GB|%|×|x|/s)';

const FORMS: [string, RegExp][] = [
  ['a before → after', new RegExp(String.raw`${N}\s*${U}?\s*(?:->|→)\s*\**${N}\s*${U}(?![\w])`)],
  [
    'a figure called measured',
    new RegExp(
      String.raw`\bmeasured\b[^.\n]{0,80}?${N}\s*${U}(?![\w])|${N}\s*${U}(?![\w])[^.\n]{0,40}\bmeasured\b`,
      'i',
    ),
  ],
  [
    'a ratio to bare Fastify',
    new RegExp(
      String.raw`${N}\s*[×x]\s*(?:of\s+|as\s+)?(?:the\s+)?(?:bare\s+)?Fastify|bare Fastify[^.\n]{0,40}?${N}\s*[×x](?![\w])`,
      'i',
    ),
  ],
  [
    'a figure of this machine',
    new RegExp(
      String.raw`${N}\s*${U}(?![\w])[^.\n]{0,50}\bon (?:this|the shared|a virtual) (?:machine|VM|2-core)|\bon (?:this|the shared|a virtual) (?:machine|VM|2-core)[^.\n]{0,80}?${N}\s*${U}(?![\w])`,
      'i',
    ),
  ],
  [
    'a figure against a figure',
    new RegExp(String.raw`${N}\s*${U}?\s+(?:against|vs\.?|versus|instead of)\s+${N}\s*${U}(?![\w])`, 'i'),
  ],
  ['a then and now', new RegExp(String.raw`${N}\s*${U}(?![\w])[^.\n]{0,60}\bnow\s+${N}\s*${U}(?![\w])`, 'i')],
  ['a dated measurement', /\bmeasured\b[^.\n]{0,80}\b20\d\d-\d\d-\d\d\b/i],
];
/**
 * The forms a code comment gives a measurement in. Pages use "about" for settings and sizes (a timeout of about
 * 2 s), so these are looked for in code only, where a figure that something took or costs is a measurement.
 */
const CODE_FORMS: [string, RegExp][] = [
  [
    'a figure something took, costs or is about',
    new RegExp(String.raw`(?:\b(?:took|takes|costs?|about)\s+|~\s*)${N}\s*${U}(?![\w])`, 'i'),
  ],
  ['a typical figure', new RegExp(String.raw`${N}\s*${U}\s+(?:typically|at p\d+)\b`, 'i')],
];
/** History belongs to commits and the CHANGELOG, not to the code that ships (tests may name the issue they guard). */
const HISTORY = /\bissue \d+/i;
const CODE = /^(src|scripts|bench|deploy)\/.*\.(ts|mts|mjs|cjs|js|sh|c)$/;

function copiedMeasurements(file: string, text: string): string[] {
  const found: string[] = [];
  text.split('\n').forEach((line, index) => {
    const forms = CODE.test(file) ? [...FORMS, ...CODE_FORMS] : FORMS;
    const match = forms.find(([, form]) => form.test(line));
    if (match) found.push(`${file}:${index + 1} ${match[0]}: ${line.trim()}`);
    if (CODE.test(file) && HISTORY.test(line)) found.push(`${file}:${index + 1} history in code: ${line.trim()}`);
  });
  return found;
}

const SELF = 'test/docs/figures-home.test.ts';
const files = repositoryFiles().filter((file) => !HOMES.has(file) && !FIXTURES.test(file) && file !== SELF);

describe('every figure lives in docs/benchmarks.md', () => {
  it('recognises the forms of a copied measurement, and not a setting', () => {
    const found = (line: string, file = 'src/x.ts') => copiedMeasurements(file, line).length;
    expect(found('idle RSS 66.1-66.5 -> 64.2-64.4 MB')).toBe(1);
    expect(found('start-up 1.11-1.34× bare Fastify')).toBe(1);
    expect(found('measured a peak resident size of 72 MB')).toBe(1);
    expect(found('an fdatasync cost 137 µs on this VM')).toBe(1);
    expect(found('(40-90 ms on the shared 2-core machine)')).toBe(1);
    expect(found("on this VM's disk doubled the flush (137-149 µs of CPU)")).toBe(1);
    expect(found('the flush cost 137-149 against 65-72 µs')).toBe(1);
    expect(found('the CRC is patched (3 µs instead of 45 µs per packet)')).toBe(1);
    expect(found('took 120-135 ms and 3.5 MB more, now 28 ms and 0.2 MB')).toBe(1);
    expect(found('Measured on this 2-core machine on 2026-11-25 (8 of 8 passed)')).toBe(1);
    expect(found('// see issue 34')).toBe(1);
    expect(found('compiled at start took ~15 ms before the first answer')).toBe(1);
    expect(found('(about 40 ms of module loading)')).toBe(1);
    expect(found('two once-wrappers were about 2 % of the CPU')).toBe(1);
    expect(found('compiling them up front cost ~45 ms of start-up')).toBe(1);
    expect(found('a disk flushes in 0.3 ms typically')).toBe(1);
    expect(found('a reinit does not pay the ~20 ms of a full collection')).toBe(1);
    expect(found('a request that takes longer than 30 s is cut')).toBe(0);
    expect(found("what one chunk can inflate to (1 MB at deflate's largest ratio)")).toBe(0);
    expect(found('a test that takes about five minutes')).toBe(0);
    expect(found('a stalled body is cut in about 2 s', 'docs/limits.md')).toBe(0);
    expect(found('headers must arrive within 10 s (408)')).toBe(0);
    expect(found('carved from 256 KB slabs')).toBe(0);
  });

  it('generated figures stand between their markers in docs/benchmarks.md only (npm run fuzz -- --write)', () => {
    const withMarkers = repositoryFiles().filter(
      (file) => file.endsWith('.md') && readFileSync(join(ROOT, file), 'utf8').includes('<!-- fuzz-figures:start -->'),
    );
    expect(withMarkers).toEqual(['docs/benchmarks.md']);
  });

  it.each(files)('%s copies no measurement', (file) => {
    expect(copiedMeasurements(file, readFileSync(join(ROOT, file), 'utf8'))).toEqual([]);
  });
});
