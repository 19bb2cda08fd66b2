/**
 * The 32-byte header lidar, IMU (ACCEL32_GYRO32_NMEA) and zone packets share (docs/udp-packets.md): STANDARD
 * (u16 packet type, u16 frame id) or FUSA (u8 packet type, u32 frame id), with the unit's identity.
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

function writeSerial(b: Buffer, offset: number, serial: bigint) {
  for (let i = 0; i < 5; i++) b[offset + i] = Number((serial >> BigInt(8 * i)) & 0xffn);
}

/** Packet type, initialization id and serial number: the fields that never change within one initialization. */
export function writeConstantHeader(b: Buffer, header: HeaderType, packetType: number, id: SensorIdentity): void {
  if (header === 'STANDARD') {
    b.writeUInt16LE(packetType, 0);
    b.writeUIntLE(id.initId & 0xffffff, 4, 3);
    writeSerial(b, 7, id.serialNumber);
  } else {
    b[0] = packetType;
    b.writeUIntLE(id.initId & 0xffffff, 1, 3);
    writeSerial(b, 11, id.serialNumber);
  }
}

/** Frame id (u16 wrapping, or FUSA's u32) and alert flags. */
export function writeFrameHeader(b: Buffer, header: HeaderType, frameId: number, alertFlags: number): void {
  if (header === 'STANDARD') {
    b[2] = frameId & 0xff;
    b[3] = (frameId >>> 8) & 0xff;
    b[12] = alertFlags;
  } else {
    b.writeUInt32LE(frameId >>> 0, 4);
    b[8] = alertFlags;
  }
}
