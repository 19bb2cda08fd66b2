/**
 * An independent decoder of zone packets, from the vendor SDK's zone packet format (PacketFormat's zone
 * fields, bit offsets within each 36-byte zone state): not the encoder's code.
 */
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
}

const HEADER = 32;
export const ZONE_PACKET_SIZE = HEADER + 8 + 32 + 16 * 36 + 32;

const bits = (b: Buffer, at: number, offset: number, width: number) =>
  Number((b.readBigUInt64LE(at) >> BigInt(offset)) & ((1n << BigInt(width)) - 1n));

export function decodeZonePacket(b: Buffer): DecodedZonePacket {
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
  return {
    packetType: b.readUInt16LE(0),
    frameId: b.readUInt16LE(2),
    initId: b.readUIntLE(4, 3),
    serial: b.readBigUInt64LE(4) >> 24n,
    timestampNs: b.readBigUInt64LE(HEADER),
    hash: b.subarray(HEADER + 8, HEADER + 40),
    zones,
  };
}
