import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { crc64, crc64BigInt } from '../../src/udp/packets/crc64.js';
import { Crc64Patcher } from '../../src/udp/packets/crc64-patch.js';
import { crc64xz } from './decoder/crc64-xz.js';

const ascii = (s: string) => new Uint8Array(Buffer.from(s, 'ascii'));

describe('CRC-64/XZ', () => {
  it('has the check value of docs/udp-packets.md, in the emitter and in the test decoder', () => {
    expect(crc64BigInt(ascii('123456789'))).toBe(0x995dc9bbdf1939fan);
    expect(crc64xz(ascii('123456789'))).toBe(0x995dc9bbdf1939fan);
  });

  it('of the empty message is 0', () => {
    expect(crc64BigInt(new Uint8Array(0))).toBe(0n);
  });

  it('agrees with the bytewise reference on any data, length and sub-range (slicing-by-8 tails included)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat(20), fc.nat(20), (bytes, a, b) => {
        const start = Math.min(a, bytes.length);
        const end = Math.max(start, bytes.length - b);
        expect(crc64BigInt(bytes, start, end)).toBe(crc64xz(bytes, start, end));
      }),
    );
  });
});

describe('Crc64Patcher', () => {
  it('gives the CRC of the whole message from a zeroed template and the variable bytes', () => {
    const arb = fc
      .record({
        length: fc.integer({ min: 8, max: 3000 }),
        cuts: fc.uniqueArray(fc.nat(2999), { minLength: 2, maxLength: 24 }),
        seed: fc.nat(),
      })
      .map(({ length, cuts, seed }) => {
        // Sorted, disjoint ranges from pairs of cut points inside the message.
        const points = [...new Set(cuts.map((c) => c % length))].sort((x, y) => x - y);
        const ranges = [];
        for (let i = 0; i + 1 < points.length; i += 2)
          ranges.push({ offset: points[i], length: points[i + 1] - points[i] });
        return { length, ranges: ranges.filter((r) => r.length > 0), seed };
      });
    fc.assert(
      fc.property(arb, fc.uint8Array({ minLength: 64, maxLength: 64 }), ({ length, ranges, seed }, fill) => {
        const message = new Uint8Array(length).map((_, i) => (i * 131 + seed) & 0xff);
        for (const r of ranges) message.fill(0, r.offset, r.offset + r.length);
        const template = crc64(message);
        const patcher = new Crc64Patcher(length, ranges);
        // Two different patches on the same template, as successive packets.
        for (let round = 0; round < 2; round++) {
          for (const r of ranges)
            for (let i = 0; i < r.length; i++) message[r.offset + i] = fill[(i + round * 7 + r.offset) % 64];
          const got = patcher.crc(message, template, { lo: 0, hi: 0 });
          expect((BigInt(got.hi) << 32n) | BigInt(got.lo)).toBe(crc64xz(message));
        }
      }),
      { numRuns: 60 },
    );
  });

  it('rejects overlapping or out-of-bounds ranges', () => {
    expect(
      () =>
        new Crc64Patcher(100, [
          { offset: 10, length: 5 },
          { offset: 12, length: 2 },
        ]),
    ).toThrow(RangeError);
    expect(() => new Crc64Patcher(100, [{ offset: 98, length: 5 }])).toThrow(RangeError);
  });
});
