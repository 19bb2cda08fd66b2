/**
 * An independent decoder of zone packets, from the vendor SDK's zone packet format (PacketFormat's zone
 * fields, bit offsets within each 36-byte zone state): not the encoder's code. The SDK reads every packet of a
 * stream with one PacketFormat, so a zone packet's header and footer are the lidar packets' (`header_type`).
 */
import { crc64xz } from '../udp/decoder/crc64-xz.js';

export interface DecodedZoneState {
  live: boolean;
  id: number;
  errorFlags: number;
  triggerType: number;
  triggerStatus: number;
  triggeredFrames: number;
  count: number;
  occlusionCount: number;
  invalidCount: number;
  maxCount: number;
  minRange: number;
  maxRange: number;
  meanRange: number;
}

export interface DecodedZonePacket {
  packetType: number;
  frameId: number;
  initId: number;
  serial: bigint;
  timestampNs: bigint;
  hash: Buffer;
  zones: DecodedZoneState[];
  alertFlags: number;
  /** The header's reserved bytes are zero. */
  reservedZero: boolean;
  /** STANDARD: 24 zero bytes and the CRC-64/XZ of the bytes before; FUSA: all zero (the SDK reads no CRC). */
  footerOk: boolean;
}

const HEADER = 32;
export const ZONE_PACKET_SIZE = HEADER + 8 + 32 + 16 * 36 + 32;

const bits = (b: Buffer, at: number, offset: number, width: number) =>
  Number((b.readBigUInt64LE(at) >> BigInt(offset)) & ((1n << BigInt(width)) - 1n));

const allZero = (b: Buffer, from: number, to: number) => b.subarray(from, to).every((x) => x === 0);

export function decodeZonePacket(b: Buffer, header: 'STANDARD' | 'FUSA' = 'STANDARD'): DecodedZonePacket {
  if (b.length !== ZONE_PACKET_SIZE) throw new Error(`a zone packet is ${ZONE_PACKET_SIZE} bytes; got ${b.length}`);
  const zones: DecodedZoneState[] = [];
  for (let i = 0; i < 16; i++) {
    const at = HEADER + 40 + i * 36;
    zones.push({
      live: bits(b, at, 0, 1) === 1,
      id: bits(b, at, 8, 8),
      errorFlags: bits(b, at, 16, 8),
      triggerType: bits(b, at, 26, 2),
      triggerStatus: bits(b, at, 31, 1),
      triggeredFrames: b.readUInt32LE(at + 4),
      count: b.readUInt32LE(at + 8),
      occlusionCount: b.readUInt32LE(at + 12),
      invalidCount: b.readUInt32LE(at + 16),
      maxCount: b.readUInt32LE(at + 20),
      minRange: b.readUInt32LE(at + 24) & 0x7ffff,
      maxRange: b.readUInt32LE(at + 28) & 0x7ffff,
      meanRange: b.readUInt32LE(at + 32) & 0x7ffff,
    });
  }
  const body = {
    timestampNs: b.readBigUInt64LE(HEADER),
    hash: b.subarray(HEADER + 8, HEADER + 40),
    zones,
  };
  const footer = b.length - 32;
  if (header === 'FUSA')
    return {
      packetType: b[0],
      initId: b.readUIntLE(1, 3),
      frameId: b.readUInt32LE(4),
      alertFlags: b[8],
      serial: b.readBigUInt64LE(8) >> 24n,
      reservedZero: allZero(b, 9, 11) && allZero(b, 16, HEADER),
      footerOk: allZero(b, footer, b.length),
      ...body,
    };
  return {
    packetType: b.readUInt16LE(0),
    frameId: b.readUInt16LE(2),
    initId: b.readUIntLE(4, 3),
    serial: b.readBigUInt64LE(4) >> 24n,
    alertFlags: b[12],
    reservedZero: allZero(b, 13, HEADER),
    footerOk: allZero(b, footer, b.length - 8) && crc64xz(b, 0, b.length - 8) === b.readBigUInt64LE(b.length - 8),
    ...body,
  };
}
