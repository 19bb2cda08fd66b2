/**
 * Reading and rewriting the per-packet fields of recorded lidar packets (docs/udp-packets.md): frame id,
 * init id, serial, column timestamps and measurement ids, for every header kind (LEGACY packets carry
 * the frame id in each column and no init id or serial). Pure.
 */
import type { HeaderType } from '../../model/index.js';
import { crc64 } from '../packets/crc64.js';
import { COLUMNS_PER_PACKET } from '../packets/lidar-profiles.js';
import { frameIdModulusOf, readPacketHeader, writeFrameId as writeHeaderFrameId } from '../packets/packet-header.js';
import {
  columnOffset,
  isLegacy,
  packetHeaderBytes,
  recordedColumnBytes,
  type RecordedLayout,
} from './recorded-layout.js';

export interface LidarHeader {
  frameId: number;
  /** null for LEGACY packets, which carry no identity. */
  initId: number | null;
  serial: bigint | null;
  /** Measurement id of the packet's first column. */
  firstMeasurementId: number;
}

/** The header of the recording's lidar, zone and ACCEL32_GYRO32_NMEA IMU packets (LEGACY recordings: STANDARD). */
export const streamHeader = (layout: RecordedLayout): HeaderType => (isLegacy(layout) ? 'STANDARD' : layout.header);

/** The header fields of `b`, which must be at least one column long (read with the unit's own header table). */
export function readLidarHeader(b: Buffer, layout: RecordedLayout): LidarHeader {
  if (isLegacy(layout))
    return { frameId: b.readUInt16LE(10), initId: null, serial: null, firstMeasurementId: b.readUInt16LE(8) };
  const header = readPacketHeader(b, layout.header);
  return {
    frameId: header.frameId,
    initId: header.initId,
    serial: header.serialNumber,
    firstMeasurementId: b.readUInt16LE(packetHeaderBytes(layout) + 8),
  };
}

/** Sets the frame id of a packet (LEGACY: of each of its columns). */
export function writeFrameId(b: Buffer, layout: RecordedLayout, pixels: number, frameId: number): void {
  if (!isLegacy(layout)) {
    writeHeaderFrameId(b, layout.header, frameId);
    return;
  }
  for (let c = 0; c < COLUMNS_PER_PACKET; c++) {
    const o = columnOffset(layout, pixels, c) + 10;
    if (o + 2 <= b.length) b.writeUInt16LE(frameId & 0xffff, o);
  }
}

/** Frame ids wrap at 2^16 (STANDARD, LEGACY) or 2^32 (FUSA). */
export const frameIdModulus = (layout: RecordedLayout) => frameIdModulusOf(streamHeader(layout));

/** Adds `deltaNs` to the timestamp of every column of a packet of `pixels` pixels per column. */
export function shiftColumnTimestamps(b: Buffer, layout: RecordedLayout, pixels: number, deltaNs: bigint): void {
  const colBytes = recordedColumnBytes(layout, pixels);
  for (let i = 0; i < COLUMNS_PER_PACKET; i++) {
    const o = packetHeaderBytes(layout) + i * colBytes;
    if (o + 8 > b.length) return;
    b.writeBigUInt64LE((b.readBigUInt64LE(o) + deltaNs) & 0xffffffffffffffffn, o);
  }
}

/** Adds `deltaNs` to the three timestamps of a LEGACY IMU packet. */
export function shiftImuTimestamps(b: Buffer, deltaNs: bigint): void {
  for (let o = 0; o + 8 <= Math.min(24, b.length); o += 8)
    b.writeBigUInt64LE((b.readBigUInt64LE(o) + deltaNs) & 0xffffffffffffffffn, o);
}

/**
 * Sets the CRC-64 of STANDARD packet `out`, a changed copy of `original`, to `stored ⊕ crc(old) ⊕ crc(new)`
 * (CRC is linear over equal-length messages): right when the recorded CRC was right, and a recorded
 * corruption stays corrupt.
 */
export function correctCrc(original: Buffer, out: Buffer): void {
  const end = out.length - 8;
  const before = crc64(original, 0, end);
  const after = crc64(out, 0, end);
  out.writeUInt32LE((original.readUInt32LE(end) ^ before.lo ^ after.lo) >>> 0, end);
  out.writeUInt32LE((original.readUInt32LE(end + 4) ^ before.hi ^ after.hi) >>> 0, end + 4);
}

/** Whether the CRC-64 in the last 8 bytes (STANDARD lidar, IMU and zone packets) matches the bytes before it. */
export function crcMatches(b: Buffer): boolean {
  const { lo, hi } = crc64(b, 0, b.length - 8);
  return b.readUInt32LE(b.length - 8) === lo && b.readUInt32LE(b.length - 4) === hi;
}
