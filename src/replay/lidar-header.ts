/**
 * Reading and rewriting the per-packet fields of recorded lidar packets (udp-packets.md): frame id,
 * init id, serial, column timestamps and measurement ids, for both header kinds. Pure.
 */
import { crc64 } from '../udp/crc64.js';
import { COLUMNS_PER_PACKET, PACKET_HEADER_BYTES, columnBytes, type ProfileLayout } from '../udp/lidar-profiles.js';

export interface LidarHeader {
  frameId: number;
  initId: number;
  serial: bigint;
  /** Measurement id of the packet's first column. */
  firstMeasurementId: number;
}

const serialAt = (b: Buffer, o: number) => BigInt(b.readUInt32LE(o)) | (BigInt(b[o + 4]) << 32n);

/** The header fields of `b`, which must be at least one column long. */
export function readLidarHeader(b: Buffer, layout: ProfileLayout): LidarHeader {
  const standard = layout.header === 'STANDARD';
  return {
    frameId: standard ? b.readUInt16LE(2) : b.readUInt32LE(4),
    initId: standard ? b.readUIntLE(4, 3) : b.readUIntLE(1, 3),
    serial: serialAt(b, standard ? 7 : 11),
    firstMeasurementId: b.readUInt16LE(PACKET_HEADER_BYTES + 8),
  };
}

export function writeFrameId(b: Buffer, layout: ProfileLayout, frameId: number): void {
  if (layout.header === 'STANDARD') b.writeUInt16LE(frameId & 0xffff, 2);
  else b.writeUInt32LE(frameId >>> 0, 4);
}

/** Frame ids wrap at 2^16 (STANDARD) or 2^32 (FUSA). */
export const frameIdModulus = (layout: ProfileLayout) => (layout.header === 'STANDARD' ? 0x10000 : 0x100000000);

/** Adds `deltaNs` to the timestamp of every column of a packet of `pixels` pixels per column. */
export function shiftColumnTimestamps(b: Buffer, layout: ProfileLayout, pixels: number, deltaNs: bigint): void {
  const colBytes = columnBytes(layout, pixels);
  for (let i = 0; i < COLUMNS_PER_PACKET; i++) {
    const o = PACKET_HEADER_BYTES + i * colBytes;
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
