/** Decodes LEGACY IMU packets (docs/udp-packets.md). */
import { IMU_PACKET_SIZE } from './formats.js';

export interface DecodedImuPacket {
  sysTs: bigint;
  accelTs: bigint;
  gyroTs: bigint;
  accel: [number, number, number];
  gyro: [number, number, number];
}

export function decodeImuPacket(b: Buffer): DecodedImuPacket {
  if (b.length !== IMU_PACKET_SIZE) throw new Error(`IMU packet of ${b.length} bytes, expected ${IMU_PACKET_SIZE}`);
  return {
    sysTs: b.readBigUInt64LE(0),
    accelTs: b.readBigUInt64LE(8),
    gyroTs: b.readBigUInt64LE(16),
    accel: [b.readFloatLE(24), b.readFloatLE(28), b.readFloatLE(32)],
    gyro: [b.readFloatLE(36), b.readFloatLE(40), b.readFloatLE(44)],
  };
}
