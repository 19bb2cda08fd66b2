/**
 * The unit reads STL files as the vendor SDK's reader does (ouster_core/src/mesh.cpp): every file of the SDK's
 * own sample set with the outcome the SDK's tests expect of it (test/fixtures/zone-monitor-sdk/README.md), and
 * the leniencies of real tools' files.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { boxTriangles, encodeBinaryStl, parseStl } from '../../src/model/index.js';

const SAMPLES = join(import.meta.dirname, '../fixtures/zone-monitor-sdk');
const sample = (name: string) => new Uint8Array(readFileSync(join(SAMPLES, name)));
const triangleCount = (bytes: Uint8Array) => {
  const read = parseStl(bytes);
  return 'problem' in read ? read.problem : read.triangles.length / 9;
};

/** Per sample file: the triangles the SDK reads, or 'refused'. */
const EXPECTED: Record<string, number | 'refused'> = {
  '0.stl': 12,
  '1.stl': 12,
  '2.stl': 12,
  '3.stl': 12,
  '4.stl': 12,
  '5.stl': 12,
  'solidworks_binary.stl': 12,
  'ascii.stl': 12,
  'plane.stl': 2,
  'empty.stl': 0,
  'tiny.stl': 124,
  'ascii_empty.stl': 'refused',
  'ascii_invalid_expected_endfacet.stl': 'refused',
  'ascii_invalid_expected_endloop.stl': 'refused',
  'ascii_invalid_expected_endsolid.stl': 'refused',
  'ascii_invalid_expected_outer_loop.stl': 'refused',
  'ascii_invalid_expected_solid.stl': 'refused',
  'ascii_invalid_expected_vertex.stl': 'refused',
  'ascii_invalid_unexpected_line.stl': 'refused',
};

const ASCII_BOX = (keyword: (k: string) => string, between = ' ', comment = '') =>
  [
    `${keyword('solid')} box`,
    comment,
    ...Array.from({ length: 12 }, (_, t) => {
      const v = Array.from(boxTriangles([1, 1, 1], [2, 2, 2]).subarray(t * 9, t * 9 + 9));
      return [
        `  ${keyword('facet')} ${keyword('normal')} 0 0 0`,
        `    ${keyword('outer')}${between}${keyword('loop')}`,
        ...[0, 1, 2].map((i) => `      ${keyword('vertex')} ${v[i * 3]} ${v[i * 3 + 1]} ${v[i * 3 + 2]}`),
        `    ${keyword('endloop')}`,
        `  ${keyword('endfacet')}`,
      ].join('\n');
    }),
    `${keyword('endsolid')} box`,
  ].join('\r\n');

describe('STL as the SDK reads it', () => {
  it('every file of the SDK sample set has the outcome the SDK tests expect', () => {
    const files = readdirSync(SAMPLES).filter((name) => name.endsWith('.stl'));
    expect(files.sort()).toEqual(Object.keys(EXPECTED).sort());
    for (const name of files) {
      const outcome = triangleCount(sample(name));
      if (EXPECTED[name] === 'refused') expect(typeof outcome, `${name}: ${outcome}`).toBe('string');
      else expect(outcome, name).toBe(EXPECTED[name]);
    }
  });

  it('takes what real tools write: upper-case keywords, several blanks, # comments, CRLF, bytes after the last triangle', () => {
    expect(triangleCount(new TextEncoder().encode(ASCII_BOX((k) => k.toUpperCase())))).toBe(12);
    expect(triangleCount(new TextEncoder().encode(ASCII_BOX((k) => k, '  ')))).toBe(12);
    expect(triangleCount(new TextEncoder().encode(ASCII_BOX((k) => k, ' ', '# exported by a tool')))).toBe(12);
    const binary = encodeBinaryStl(boxTriangles([1, 1, 1], [2, 2, 2]));
    const trailing = new Uint8Array(binary.length + 37);
    trailing.set(binary);
    expect(triangleCount(trailing)).toBe(12);
    // The last triangle's attribute may be missing.
    expect(triangleCount(binary.subarray(0, binary.length - 2))).toBe(12);
  });

  it('refuses a binary file cut inside a triangle, naming what it holds and needs', () => {
    const binary = encodeBinaryStl(boxTriangles([1, 1, 1], [2, 2, 2]));
    expect(triangleCount(binary.subarray(0, binary.length - 3))).toMatch(/binary STL of 12 triangles cut short/);
  });
});
