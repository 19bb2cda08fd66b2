/**
 * Lidar and IMU datagrams decoded from the published packet layouts (docs/udp-packets.md), written
 * for the validator alone: it must not share the server's encoders, or a shared mistake would pass. Only the
 * block sizes come from the profiles' field tables (src/model), the one statement of each layout.
 */
import { CHANNEL_BLOCKS, LEGACY_CHANNEL_BLOCK } from '../model/index.js';

export type HeaderKind = 'standard' | 'fusa' | 'legacy';

export interface ProfileLayout {
  header: HeaderKind;
  bytesPerChannel: number;
  /** The footer carries CRC-64/XZ (STANDARD header only). */
  crc: boolean;
}

/** Block sizes from the profiles' field tables (docs/udp-packets.md's layout table is made from the same tables). */
export const PROFILE_LAYOUTS: Record<string, ProfileLayout> = {
  ...Object.fromEntries(
    Object.entries(CHANNEL_BLOCKS).map(([profile, block]) => {
      const fusa = profile === 'FUSA_RNG15_RFL8_NIR8_DUAL';
      return [profile, { header: fusa ? 'fusa' : 'standard', bytesPerChannel: block.bytes, crc: !fusa }];
    }),
  ),
  LEGACY: { header: 'legacy', bytesPerChannel: LEGACY_CHANNEL_BLOCK.bytes, crc: false },
};

const HEADER_BYTES = 32;
const FOOTER_BYTES = 32;
const COLUMN_HEADER_BYTES = 12;
const LEGACY_COLUMN_HEAD = 16;
const LEGACY_COLUMN_TAIL = 4;
export const IMU_PACKET_BYTES = 48;

export function columnBytes(layout: ProfileLayout, pixels: number): number {
  return layout.header === 'legacy'
    ? LEGACY_COLUMN_HEAD + layout.bytesPerChannel * pixels + LEGACY_COLUMN_TAIL
    : COLUMN_HEADER_BYTES + layout.bytesPerChannel * pixels;
}

export function lidarPacketBytes(layout: ProfileLayout, pixels: number, columnsPerPacket: number): number {
  const columns = columnsPerPacket * columnBytes(layout, pixels);
  return layout.header === 'legacy' ? columns : HEADER_BYTES + columns + FOOTER_BYTES;
}

export interface Column {
  timestampNs: bigint;
  measurementId: number;
  valid: boolean;
  /** Status says invalid and every channel byte is zero, as columns outside the window must be. */
  blank: boolean;
  /** LEGACY only: the column's own frame id and encoder count. */
  frameId?: number;
  encoderCount?: number;
}

export interface LidarPacket {
  packetType?: number;
  frameId: number;
  initId?: number;
  serial?: bigint;
  alertFlags?: number;
  /** Reserved header bytes that are not zero (offsets), as the layout requires them to be. */
  nonZeroReserved: number[];
  columns: Column[];
  /** true/false for profiles with a CRC, undefined otherwise. */
  crcOk?: boolean;
  /** FUSA: the footer is all zero. */
  footerZero?: boolean;
}

const u40 = (buf: Buffer, at: number) => BigInt(buf.readUInt32LE(at)) + (BigInt(buf[at + 4]) << 32n);

export function decodeLidarPacket(
  buf: Buffer,
  layout: ProfileLayout,
  pixels: number,
  columnsPerPacket: number,
): LidarPacket {
  const size = columnBytes(layout, pixels);
  const channelBytes = layout.bytesPerChannel * pixels;
  const columns: Column[] = [];
  if (layout.header === 'legacy') {
    for (let i = 0; i < columnsPerPacket; i++) {
      const at = i * size;
      const status = buf.readUInt32LE(at + LEGACY_COLUMN_HEAD + channelBytes);
      columns.push({
        timestampNs: buf.readBigUInt64LE(at),
        measurementId: buf.readUInt16LE(at + 8),
        frameId: buf.readUInt16LE(at + 10),
        encoderCount: buf.readUInt32LE(at + 12),
        valid: status === 0xffffffff,
        blank: status === 0 && isZero(buf, at + LEGACY_COLUMN_HEAD, channelBytes),
      });
    }
    return { frameId: columns[0].frameId ?? 0, nonZeroReserved: [], columns };
  }
  for (let i = 0; i < columnsPerPacket; i++) {
    const at = HEADER_BYTES + i * size;
    const status = buf.readUInt16LE(at + 10);
    columns.push({
      timestampNs: buf.readBigUInt64LE(at),
      measurementId: buf.readUInt16LE(at + 8),
      valid: (status & 1) === 1,
      blank: status === 0 && isZero(buf, at + COLUMN_HEADER_BYTES, channelBytes),
    });
  }
  const footerAt = buf.length - FOOTER_BYTES;
  if (layout.header === 'fusa') {
    return {
      packetType: buf[0],
      initId: buf.readUIntLE(1, 3),
      frameId: buf.readUInt32LE(4),
      alertFlags: buf[8],
      serial: u40(buf, 11),
      nonZeroReserved: nonZero(buf, [9, 10, ...range(20, 32)]),
      columns,
      footerZero: isZero(buf, footerAt, FOOTER_BYTES),
    };
  }
  return {
    packetType: buf.readUInt16LE(0),
    frameId: buf.readUInt16LE(2),
    initId: buf.readUIntLE(4, 3),
    serial: u40(buf, 7),
    alertFlags: buf[12],
    nonZeroReserved: nonZero(buf, [13, 14, 15, ...range(20, 32), ...range(footerAt, footerAt + 24)]),
    columns,
    crcOk: layout.crc ? crc64Matches(buf) : undefined,
  };
}

export interface ImuPacket {
  sysTs: bigint;
  accelTs: bigint;
  gyroTs: bigint;
  accel: [number, number, number];
  gyro: [number, number, number];
}

export function decodeImuPacket(buf: Buffer): ImuPacket {
  const f = (at: number) => buf.readFloatLE(at);
  return {
    sysTs: buf.readBigUInt64LE(0),
    accelTs: buf.readBigUInt64LE(8),
    gyroTs: buf.readBigUInt64LE(16),
    accel: [f(24), f(28), f(32)],
    gyro: [f(36), f(40), f(44)],
  };
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, i) => from + i);
}

function nonZero(buf: Buffer, offsets: number[]): number[] {
  return offsets.filter((at) => buf[at] !== 0);
}

function isZero(buf: Buffer, at: number, length: number): boolean {
  for (let i = at; i < at + length; i++) if (buf[i] !== 0) return false;
  return true;
}

// CRC-64/XZ: reflected ECMA-182 polynomial 0xC96C5795D7870F42, init and final XOR all ones. The
// 64-bit register is two unsigned 32-bit halves (byte at a time; plain numbers, no BigInt per byte).
const POLY_HI = 0xc96c5795;
const POLY_LO = 0xd7870f42;
const TABLE_LO = new Uint32Array(256);
const TABLE_HI = new Uint32Array(256);
for (let n = 0; n < 256; n++) {
  let lo = n;
  let hi = 0;
  for (let bit = 0; bit < 8; bit++) {
    const carry = lo & 1;
    lo = ((lo >>> 1) | (hi << 31)) >>> 0;
    hi >>>= 1;
    if (carry) {
      lo = (lo ^ POLY_LO) >>> 0;
      hi = (hi ^ POLY_HI) >>> 0;
    }
  }
  TABLE_LO[n] = lo;
  TABLE_HI[n] = hi;
}

/** CRC-64/XZ of `buf[0..end)` as a bigint. */
export function crc64xz(buf: Uint8Array, end = buf.length): bigint {
  let lo = 0xffffffff;
  let hi = 0xffffffff;
  for (let i = 0; i < end; i++) {
    const index = (lo ^ buf[i]) & 0xff;
    lo = (((lo >>> 8) | (hi << 24)) ^ TABLE_LO[index]) >>> 0;
    hi = ((hi >>> 8) ^ TABLE_HI[index]) >>> 0;
  }
  return (BigInt((hi ^ 0xffffffff) >>> 0) << 32n) | BigInt((lo ^ 0xffffffff) >>> 0);
}

/** The last 8 bytes hold the CRC of everything before them, least significant byte first. */
function crc64Matches(buf: Buffer): boolean {
  return crc64xz(buf, buf.length - 8) === buf.readBigUInt64LE(buf.length - 8);
}
