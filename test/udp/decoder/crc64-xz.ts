/**
 * CRC-64/XZ written straight from docs/udp-packets.md (reflected polynomial 0xC96C5795D7870F42, init and
 * final XOR all ones, LSB first). The table is derived bit by bit with BigInt (obviously right); the
 * byte loop keeps the register as two 32-bit numbers only for speed. Shares nothing with the emitter.
 */
const POLY = 0xc96c5795d7870f42n;

const TABLE: bigint[] = Array.from({ length: 256 }, (_, n) => {
  let c = BigInt(n);
  for (let bit = 0; bit < 8; bit++) c = c & 1n ? (c >> 1n) ^ POLY : c >> 1n;
  return c;
});
const LOW = TABLE.map((c) => Number(c & 0xffffffffn));
const HIGH = TABLE.map((c) => Number(c >> 32n));

export function crc64xz(bytes: Uint8Array, start = 0, end = bytes.length): bigint {
  let lo = 0xffffffff;
  let hi = 0xffffffff;
  for (let i = start; i < end; i++) {
    // crc = TABLE[(crc ^ byte) & 0xff] ^ (crc >> 8), on the two halves.
    const t = (lo ^ bytes[i]) & 0xff;
    lo = ((lo >>> 8) | ((hi & 0xff) << 24)) ^ LOW[t];
    hi = (hi >>> 8) ^ HIGH[t];
  }
  return (BigInt((hi ^ 0xffffffff) >>> 0) << 32n) | BigInt((lo ^ 0xffffffff) >>> 0);
}
