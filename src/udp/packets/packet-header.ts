/**
 * The 32-byte header lidar, IMU (ACCEL32_GYRO32_NMEA) and zone packets share (docs/udp-packets.md): STANDARD
 * (u16 packet type, u16 frame id) or FUSA (u8 packet type, u32 frame id), with the unit's identity. One table of
 * offsets per header type, which the encoder below and the decoder (readPacketHeader, for replay) both read.
 */
import type { HeaderType } from '../../model/index.js';

export interface SensorIdentity {
  /** u24 `initialization_id`. */
  initId: number;
  /** u40 `prod_sn`. */
  serialNumber: bigint;
}

/** packet_type of each kind of packet. */
export const PACKET_TYPE = { lidar: 1, imu: 2, zone: 3 } as const;

/** Where each header field lies: byte offset and width in bytes (little-endian). */
interface HeaderFields {
  packetType: readonly [number, 1 | 2];
  frameId: readonly [number, 2 | 4];
  initId: readonly [number, 3];
  serial: readonly [number, 5];
  alertFlags: readonly [number, 1];
}

export const HEADER_FIELDS: Readonly<Record<HeaderType, HeaderFields>> = {
  STANDARD: { packetType: [0, 2], frameId: [2, 2], initId: [4, 3], serial: [7, 5], alertFlags: [12, 1] },
  FUSA: { packetType: [0, 1], initId: [1, 3], frameId: [4, 4], alertFlags: [8, 1], serial: [11, 5] },
};

/** Frame ids wrap at 2^16 (STANDARD) or 2^32 (FUSA). */
export const frameIdModulusOf = (header: HeaderType) => 2 ** (8 * HEADER_FIELDS[header].frameId[1]);

export interface PacketHeader extends SensorIdentity {
  packetType: number;
  frameId: number;
  alertFlags: number;
}

/** The header fields of `b` (at least 32 bytes), as the unit wrote them. */
export function readPacketHeader(b: Buffer, header: HeaderType): PacketHeader {
  const f = HEADER_FIELDS[header];
  const [serialAt] = f.serial;
  return {
    packetType: b.readUIntLE(...f.packetType),
    frameId: b.readUIntLE(...f.frameId),
    initId: b.readUIntLE(...f.initId),
    serialNumber: BigInt(b.readUInt32LE(serialAt)) | (BigInt(b[serialAt + 4]) << 32n),
    alertFlags: b[f.alertFlags[0]],
  };
}

function writeSerial(b: Buffer, offset: number, serial: bigint) {
  for (let i = 0; i < 5; i++) b[offset + i] = Number((serial >> BigInt(8 * i)) & 0xffn);
}

/** Packet type, initialization id and serial number: the fields that never change within one initialization. */
export function writeConstantHeader(b: Buffer, header: HeaderType, packetType: number, id: SensorIdentity): void {
  const f = HEADER_FIELDS[header];
  b.writeUIntLE(packetType, ...f.packetType);
  b.writeUIntLE(id.initId & 0xffffff, ...f.initId);
  writeSerial(b, f.serial[0], id.serialNumber);
}

/** Sets the frame id (u16 wrapping, or FUSA's u32) alone. */
export function writeFrameId(b: Buffer, header: HeaderType, frameId: number): void {
  const [at, bytes] = HEADER_FIELDS[header].frameId;
  b.writeUIntLE(frameId % frameIdModulusOf(header), at, bytes);
}

/** Frame id (u16 wrapping, or FUSA's u32) and alert flags. */
export function writeFrameHeader(b: Buffer, header: HeaderType, frameId: number, alertFlags: number): void {
  writeFrameId(b, header, frameId);
  b[HEADER_FIELDS[header].alertFlags[0]] = alertFlags;
}
