/**
 * utcIsoString writes exactly what Date.prototype.toISOString writes, and the server's sources use it
 * instead (toISOString makes V8 load ICU's time-zone data: src/model/util/utc-time.ts says why).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { utcIsoString } from '../../src/model/index.js';

const SRC = resolve(import.meta.dirname, '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

describe('utcIsoString', () => {
  it("equals toISOString's text for every moment of the years 0 to 9999", () => {
    // Date.UTC maps years 0-99 to 1900-1999: year 0 is set explicitly.
    const min = new Date(0).setUTCFullYear(0, 0, 1);
    fc.assert(
      fc.property(fc.integer({ min, max: Date.UTC(9999, 11, 31, 23, 59, 59, 999) }), (ms) => {
        expect(utcIsoString(ms)).toBe(new Date(ms).toISOString());
      }),
      { numRuns: 20_000 },
    );
    for (const ms of [0, -1, min, Date.UTC(2024, 1, 29, 23, 59, 59, 999), Date.UTC(9999, 11, 31, 23, 59, 59, 999)])
      expect(utcIsoString(ms)).toBe(new Date(ms).toISOString());
  });

  it('leaves years outside 0-9999 and invalid moments to Date (signed six-digit years, RangeError)', () => {
    for (const ms of [Date.UTC(10000, 0, 1), Date.UTC(-1, 11, 31, 23), 8.64e15, -8.64e15])
      expect(utcIsoString(ms)).toBe(new Date(ms).toISOString());
    expect(() => utcIsoString(Number.NaN)).toThrow(RangeError);
    expect(() => utcIsoString(8.64e15 + 1)).toThrow(RangeError);
  });

  it('is what the sources write ISO times with', () => {
    const callers = sourceFiles(SRC).filter(
      (file) => !file.endsWith('utc-time.ts') && /\.toISOString\(/.test(readFileSync(file, 'utf8')),
    );
    expect(callers).toEqual([]);
  });
});
