/** The slab answers are cut from: pieces never overlap, and a large request gets its own buffer. */
import { expect, it } from 'vitest';
import { ByteSlab } from '../../src/model/util/byte-slab.js';

it('cuts disjoint, aligned pieces and starts a new slab when one is full', () => {
  const slab = new ByteSlab();
  const pieces = Array.from({ length: 300 }, (_, i) => slab.take(2000 + (i % 7)));
  pieces.forEach((piece, i) => piece.fill(i % 251));
  pieces.forEach((piece, i) => {
    expect(piece.length).toBe(2000 + (i % 7));
    expect(piece.byteOffset % 8).toBe(0);
    expect(piece.every((b) => b === i % 251)).toBe(true);
  });
  const slabs = new Set(pieces.map((p) => p.buffer));
  expect(slabs.size).toBeGreaterThan(1); // 300 × 2 KB do not fit one 256 KB slab
  expect(slabs.size).toBeLessThan(10);
});

it('gives a large answer a buffer of its own', () => {
  const slab = new ByteSlab();
  const small = slab.take(100);
  const large = slab.take(200_000);
  expect(large.length).toBe(200_000);
  expect(large.buffer).not.toBe(small.buffer);
});
