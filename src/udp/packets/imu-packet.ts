/**
 * IMU packets, LEGACY profile (docs/udp-packets.md): 48 bytes, no header. Values are clipped to the
 * configured full-scale range and quantized to the 16-bit resolution that range gives.
 */
import type { FullScaleRange } from '../../model/index.js';

export const IMU_PACKET_BYTES = 48;

/** ± full scale in g (`accel_fsr`) and deg/s (`gyro_fsr`). */
export const ACCEL_FULL_SCALE_G: Readonly<Record<FullScaleRange, number>> = { NORMAL: 2, EXTENDED: 16 };
export const GYRO_FULL_SCALE_DPS: Readonly<Record<FullScaleRange, number>> = { NORMAL: 250, EXTENDED: 2000 };

/** What the inertial sensor reads at the instant of one sample, before range and resolution. */
export interface ImuSample {
  /** ns of the sensor clock. */
  sysTs: bigint;
  accelTs: bigint;
  gyroTs: bigint;
  accelG: readonly [number, number, number];
  gyroDps: readonly [number, number, number];
}

/** The reading of a 16-bit converter with range ±fullScale: clipped, then rounded to one LSB. */
export function quantize(value: number, fullScale: number): number {
  const lsb = fullScale / 32768;
  const counts = Math.max(-32768, Math.min(32767, Math.round(value / lsb)));
  return counts * lsb;
}

/** Encodes `sample` into `out` (48 bytes) as the unit's IMU would report it. */
export function encodeImuPacket(
  out: Buffer,
  sample: ImuSample,
  accelFsr: FullScaleRange,
  gyroFsr: FullScaleRange,
): Buffer {
  out.writeBigUInt64LE(sample.sysTs, 0);
  out.writeBigUInt64LE(sample.accelTs, 8);
  out.writeBigUInt64LE(sample.gyroTs, 16);
  const a = ACCEL_FULL_SCALE_G[accelFsr];
  const g = GYRO_FULL_SCALE_DPS[gyroFsr];
  for (let i = 0; i < 3; i++) {
    out.writeFloatLE(quantize(sample.accelG[i], a), 24 + 4 * i);
    out.writeFloatLE(quantize(sample.gyroDps[i], g), 36 + 4 * i);
  }
  return out;
}
