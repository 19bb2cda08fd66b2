/**
 * CRC-64/XZ of a packet that differs from a precomputed template only in a few byte ranges.
 *
 * Every lidar packet of a configuration is one of a few fixed templates (the scene is static) in which
 * only the frame id, the alert flags and the column timestamps change. CRC is linear over GF(2): for
 * messages of equal length, crc(template ⊕ delta) = crc(template) ⊕ raw(delta), where raw is the
 * register update from zero with no final XOR. With the template's variable bytes zeroed, delta is the
 * packet's variable bytes at their offsets and zeros elsewhere, so raw(delta) only needs those bytes
 * plus "advance over n zero bytes" steps, each a linear map on the 64-bit register applied with eight
 * byte-indexed tables. 130 bytes of work per packet instead of the whole packet.
 */
import { CRC64_TABLE_HI, CRC64_TABLE_LO, type Crc64Register } from './crc64.js';

/** The linear map "feed n zero bytes" on a raw register, as eight 256-entry tables per half. */
class ZeroRun {
  readonly lo = new Uint32Array(8 * 256);
  readonly hi = new Uint32Array(8 * 256);

  constructor(zeroBytes: number) {
    // Image of each of the 64 single-bit registers, then every byte value of every byte position by XOR.
    const imgLo = new Uint32Array(64);
    const imgHi = new Uint32Array(64);
    for (let bit = 0; bit < 64; bit++) {
      let lo = bit < 32 ? (1 << bit) >>> 0 : 0;
      let hi = bit < 32 ? 0 : (1 << (bit - 32)) >>> 0;
      for (let n = 0; n < zeroBytes; n++) {
        const idx = lo & 0xff;
        lo = (((lo >>> 8) | (hi << 24)) ^ CRC64_TABLE_LO[idx]) >>> 0;
        hi = ((hi >>> 8) ^ CRC64_TABLE_HI[idx]) >>> 0;
      }
      imgLo[bit] = lo;
      imgHi[bit] = hi;
    }
    for (let pos = 0; pos < 8; pos++) {
      for (let value = 1; value < 256; value++) {
        const lowBit = 31 - Math.clz32(value & -value);
        const rest = value & (value - 1);
        const bit = pos * 8 + lowBit;
        this.lo[pos * 256 + value] = (this.lo[pos * 256 + rest] ^ imgLo[bit]) >>> 0;
        this.hi[pos * 256 + value] = (this.hi[pos * 256 + rest] ^ imgHi[bit]) >>> 0;
      }
    }
  }

  apply(reg: Crc64Register): void {
    const { lo: tl, hi: th } = this;
    const a = reg.lo;
    const b = reg.hi;
    const i0 = a & 0xff;
    const i1 = 256 + ((a >>> 8) & 0xff);
    const i2 = 512 + ((a >>> 16) & 0xff);
    const i3 = 768 + (a >>> 24);
    const i4 = 1024 + (b & 0xff);
    const i5 = 1280 + ((b >>> 8) & 0xff);
    const i6 = 1536 + ((b >>> 16) & 0xff);
    const i7 = 1792 + (b >>> 24);
    reg.lo = (tl[i0] ^ tl[i1] ^ tl[i2] ^ tl[i3] ^ tl[i4] ^ tl[i5] ^ tl[i6] ^ tl[i7]) >>> 0;
    reg.hi = (th[i0] ^ th[i1] ^ th[i2] ^ th[i3] ^ th[i4] ^ th[i5] ^ th[i6] ^ th[i7]) >>> 0;
  }
}

/** A byte range `[offset, offset + length)` whose content varies from packet to packet. */
export interface VariableRange {
  offset: number;
  length: number;
}

export class Crc64Patcher {
  private readonly ranges: readonly VariableRange[];
  /** `gaps[i]`: zero bytes between the end of range i-1 and range i (gaps[0] unused); last: to the end. */
  private readonly gaps: (ZeroRun | null)[];
  private readonly tail: ZeroRun | null;
  private readonly reg: Crc64Register = { lo: 0, hi: 0 };

  /**
   * @param coveredLength bytes the CRC covers (everything before the CRC field)
   * @param ranges the variable ranges, sorted and disjoint, inside `[0, coveredLength)`
   */
  constructor(coveredLength: number, ranges: readonly VariableRange[]) {
    let end = 0;
    for (const r of ranges) {
      if (r.offset < end || r.length <= 0 || r.offset + r.length > coveredLength) {
        throw new RangeError(`variable ranges must be sorted, disjoint and inside ${coveredLength} bytes`);
      }
      end = r.offset + r.length;
    }
    this.ranges = ranges.map((r) => ({ ...r }));
    const runs = new Map<number, ZeroRun>();
    const run = (n: number) => {
      if (n === 0) return null;
      let z = runs.get(n);
      if (!z) runs.set(n, (z = new ZeroRun(n)));
      return z;
    };
    this.gaps = ranges.map((r, i) => (i === 0 ? null : run(r.offset - (ranges[i - 1].offset + ranges[i - 1].length))));
    this.tail = run(coveredLength - end);
  }

  /**
   * CRC of `bytes[0, coveredLength)`, given `templateCrc` = CRC of the same bytes with every variable
   * range zeroed. Writes the result into `out` and returns it.
   */
  crc(bytes: Uint8Array, templateCrc: Crc64Register, out: Crc64Register): Crc64Register {
    const reg = this.reg;
    reg.lo = 0;
    reg.hi = 0;
    const ranges = this.ranges;
    for (let r = 0; r < ranges.length; r++) {
      this.gaps[r]?.apply(reg);
      const { offset, length } = ranges[r];
      let lo = reg.lo;
      let hi = reg.hi;
      for (let i = offset; i < offset + length; i++) {
        const idx = (lo ^ bytes[i]) & 0xff;
        lo = (((lo >>> 8) | (hi << 24)) ^ CRC64_TABLE_LO[idx]) >>> 0;
        hi = ((hi >>> 8) ^ CRC64_TABLE_HI[idx]) >>> 0;
      }
      reg.lo = lo;
      reg.hi = hi;
    }
    this.tail?.apply(reg);
    out.lo = (templateCrc.lo ^ reg.lo) >>> 0;
    out.hi = (templateCrc.hi ^ reg.hi) >>> 0;
    return out;
  }
}
