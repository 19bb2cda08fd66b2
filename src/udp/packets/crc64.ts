/**
 * CRC-64/XZ (ECMA-182 polynomial, reflected 0xC96C5795D7870F42, init and final XOR all ones): the
 * footer checksum of lidar packets (docs/udp-packets.md, Footer).
 *
 * The 64-bit register is kept as two unsigned 32-bit halves so that the hot loop never touches
 * BigInt; slicing-by-8 consumes eight bytes per step with eight table lookups per half.
 */

const POLY_LO = 0xd7870f42;
const POLY_HI = 0xc96c5795;

/** Register after one byte of zeros from a register whose low byte is `index` and other bytes zero, per half. */
function byteTable(): { lo: Uint32Array; hi: Uint32Array } {
  const lo = new Uint32Array(256);
  const hi = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let l = n;
    let h = 0;
    for (let bit = 0; bit < 8; bit++) {
      const carry = l & 1;
      l = ((l >>> 1) | (h << 31)) >>> 0;
      h = h >>> 1;
      if (carry) {
        l = (l ^ POLY_LO) >>> 0;
        h = (h ^ POLY_HI) >>> 0;
      }
    }
    lo[n] = l;
    hi[n] = h;
  }
  return { lo, hi };
}

/**
 * Slicing-by-8 tables: table k maps a byte to the register contribution of that byte followed by k
 * zero bytes. Stored as one Uint32Array per half, table k at offset 256·k.
 */
function slicingTables(): { lo: Uint32Array; hi: Uint32Array } {
  const first = byteTable();
  const lo = new Uint32Array(256 * 8);
  const hi = new Uint32Array(256 * 8);
  lo.set(first.lo);
  hi.set(first.hi);
  for (let k = 1; k < 8; k++) {
    for (let n = 0; n < 256; n++) {
      const pl = lo[256 * (k - 1) + n];
      const ph = hi[256 * (k - 1) + n];
      const i = pl & 0xff;
      lo[256 * k + n] = (((pl >>> 8) | (ph << 24)) ^ first.lo[i]) >>> 0;
      hi[256 * k + n] = ((ph >>> 8) ^ first.hi[i]) >>> 0;
    }
  }
  return { lo, hi };
}

const T = slicingTables();
/** Byte-at-a-time table (the first slice), shared with crc64-patch.ts. */
export const CRC64_TABLE_LO = T.lo.subarray(0, 256);
export const CRC64_TABLE_HI = T.hi.subarray(0, 256);

/** A 64-bit CRC register as two unsigned 32-bit halves. */
export interface Crc64Register {
  lo: number;
  hi: number;
}

/**
 * Raw register update (no init, no final XOR) over `bytes[start, end)`, starting from `reg`,
 * which is updated in place and returned. Linear in (register, data), which crc64-patch.ts relies on.
 */
export function crc64Update(reg: Crc64Register, bytes: Uint8Array, start = 0, end = bytes.length): Crc64Register {
  const tlo = T.lo;
  const thi = T.hi;
  let lo = reg.lo;
  let hi = reg.hi;
  let i = start;
  const stop8 = start + ((end - start) & ~7);
  for (; i < stop8; i += 8) {
    const a = (lo ^ (bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24))) >>> 0;
    const b = (hi ^ (bytes[i + 4] | (bytes[i + 5] << 8) | (bytes[i + 6] << 16) | (bytes[i + 7] << 24))) >>> 0;
    const i7 = 7 * 256 + (a & 0xff);
    const i6 = 6 * 256 + ((a >>> 8) & 0xff);
    const i5 = 5 * 256 + ((a >>> 16) & 0xff);
    const i4 = 4 * 256 + (a >>> 24);
    const i3 = 3 * 256 + (b & 0xff);
    const i2 = 2 * 256 + ((b >>> 8) & 0xff);
    const i1 = 256 + ((b >>> 16) & 0xff);
    const i0 = b >>> 24;
    lo = (tlo[i7] ^ tlo[i6] ^ tlo[i5] ^ tlo[i4] ^ tlo[i3] ^ tlo[i2] ^ tlo[i1] ^ tlo[i0]) >>> 0;
    hi = (thi[i7] ^ thi[i6] ^ thi[i5] ^ thi[i4] ^ thi[i3] ^ thi[i2] ^ thi[i1] ^ thi[i0]) >>> 0;
  }
  for (; i < end; i++) {
    const idx = (lo ^ bytes[i]) & 0xff;
    lo = (((lo >>> 8) | (hi << 24)) ^ tlo[idx]) >>> 0;
    hi = ((hi >>> 8) ^ thi[idx]) >>> 0;
  }
  reg.lo = lo;
  reg.hi = hi;
  return reg;
}

/** CRC-64/XZ of `bytes[start, end)` as a register pair (already final-XORed). */
export function crc64(bytes: Uint8Array, start = 0, end = bytes.length): Crc64Register {
  const reg = crc64Update({ lo: 0xffffffff, hi: 0xffffffff }, bytes, start, end);
  reg.lo = ~reg.lo >>> 0;
  reg.hi = ~reg.hi >>> 0;
  return reg;
}

/** CRC-64/XZ as a BigInt, for tests and tools. */
export function crc64BigInt(bytes: Uint8Array, start = 0, end = bytes.length): bigint {
  const { lo, hi } = crc64(bytes, start, end);
  return (BigInt(hi) << 32n) | BigInt(lo);
}
