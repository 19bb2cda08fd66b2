import { describe, expect, it } from 'vitest';
import { sourceTexts } from '../../scripts/check-layers.js';
import { exceptionLines, SIZE_EXCEPTIONS, sizes, sizeViolations } from '../../scripts/check-sizes.js';

/** A file of `lines` lines whose one function `name` spans `functionLines` of them. */
function fileWith(path: string, lines: number, name = 'short', functionLines = 3) {
  const body = Array.from({ length: functionLines - 2 }, (_, i) => `  const v${i} = ${i};`);
  const fn = [`export function ${name}(): void {`, ...body, '}'];
  const rest = Array.from({ length: Math.max(0, lines - fn.length) }, (_, i) => `export const c${i} = ${i};`);
  return { path, text: `${[...fn, ...rest].join('\n')}\n` };
}

describe('sizes (docs/architecture.md: a file a reader can hold in mind)', () => {
  it('no file of src/ over 300 lines and no function over 80, but the listed exceptions', () => {
    expect(sizeViolations(sizes(sourceTexts()))).toEqual([]);
  });

  it('flags a file over 300 lines and a function over 80, naming each', () => {
    const measured = sizes([
      fileWith('core/at-limit.ts', 300, 'fits', 80),
      fileWith('core/long-file.ts', 301),
      fileWith('core/long-function.ts', 100, 'tooLong', 81),
    ]);
    const problems = sizeViolations(measured, {});
    expect(problems).toEqual([
      expect.stringContaining('src/core/long-file.ts has 301 lines, over 300'),
      expect.stringContaining('src/core/long-function.ts: function tooLong has 81 lines, over 80'),
    ]);
  });

  it('names methods, arrow functions and unnamed callbacks so that an exception can name them', () => {
    const text = [
      'export class Unit {',
      '  start(): void {',
      '    [1].forEach(() => {',
      '      void 0;',
      '    });',
      '  }',
      '}',
      'export const routes = async () => {};',
    ].join('\n');
    const names = sizes([{ path: 'core/unit.ts', text }]).map((s) => s.name);
    expect(names).toEqual([
      'core/unit.ts',
      'core/unit.ts#Unit.start',
      'core/unit.ts#Unit.start>callback 1',
      'core/unit.ts#routes',
    ]);
  });

  it('passes a listed exception, prints it with its reason, and flags one no longer needed', () => {
    const measured = sizes([fileWith('model/table.ts', 400), fileWith('model/small.ts', 10)]);
    const exceptions = { 'model/table.ts': 'a data table', 'model/small.ts': 'once long' };
    expect(sizeViolations(measured, exceptions)).toEqual([
      'SIZE_EXCEPTIONS names model/small.ts, which is not over its limit: remove it',
    ]);
    expect(exceptionLines(measured, exceptions)[0]).toBe('  src/model/table.ts (400 lines): a data table');
  });

  it('gives every exception a reason', () => {
    for (const [name, why] of Object.entries(SIZE_EXCEPTIONS)) expect(why.length, name).toBeGreaterThan(10);
  });
});
