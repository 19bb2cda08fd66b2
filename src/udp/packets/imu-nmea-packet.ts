/**
 * IMU packets of the ACCEL32_GYRO32_NMEA profile (firmware 3.2; docs/udp-packets.md): the lidar packets'
 * 32-byte header (packet type 2, the lidar frame's id), a 100-byte NMEA block (u64 time the sentence arrived, then
 * the sentence, NUL-padded to 92 bytes; all zero without one), `imu_measurements_per_packet` measurements of 36
 * bytes (u64 timestamp, u16 measurement id, u16 status, acceleration x, y, z in m/s² and angular velocity x, y, z
 * in rad/s as f32) and the 32-byte footer (CRC-64 in its last 8 bytes with the STANDARD header, zero with FUSA).
 * A real 3.2.0 unit's packets (test/fixtures/recordings/imu_zm_no_lidar.pcap) are laid out so.
 */
import type { FullScaleRange, HeaderType } from '../../model/index.js';
import { crc64 } from './crc64.js';
import { PACKET_TYPE, type SensorIdentity, writeConstantHeader, writeFrameHeader } from './packet-header.js';

const HEADER_BYTES = 32;
const FOOTER_BYTES = 32;
export const NMEA_BLOCK_BYTES = 100;
/** Room for the sentence in the NMEA block (after its u64 time). */
export const NMEA_SENTENCE_BYTES = NMEA_BLOCK_BYTES - 8;
export const IMU_MEASUREMENT_BYTES = 36;
const FIRST_MEASUREMENT = HEADER_BYTES + NMEA_BLOCK_BYTES;
/** Standard gravity: the accelerometer's g in m/s². */
const G_MPS2 = 9.80665;
const RAD_PER_DEG = Math.PI / 180;
/**
 * Counts per g and per deg/s of the inertial sensor in each range, as a real 3.2.0 unit's samples fall on them
 * (its EXTENDED gyroscope reads in steps of 1/16.4 deg/s, not 2000/32768): the converter is 16-bit either way.
 */
const ACCEL_COUNTS_PER_G: Readonly<Record<FullScaleRange, number>> = { NORMAL: 16384, EXTENDED: 2048 };
const GYRO_COUNTS_PER_DPS: Readonly<Record<FullScaleRange, number>> = { NORMAL: 131, EXTENDED: 16.4 };

/** The reading of a 16-bit converter with `countsPerUnit`: rounded to one count, clipped to its range. */
const counts = (value: number, countsPerUnit: number) =>
  Math.max(-32768, Math.min(32767, Math.round(value * countsPerUnit)));

export const imuNmeaPacketBytes = (measurements: number) =>
  FIRST_MEASUREMENT + measurements * IMU_MEASUREMENT_BYTES + FOOTER_BYTES;

/** The samples a packet of `bytes` bytes holds, or null when no ACCEL32_GYRO32_NMEA packet has that size. */
export function imuNmeaMeasurementsOf(bytes: number): number | null {
  const n = (bytes - imuNmeaPacketBytes(0)) / IMU_MEASUREMENT_BYTES;
  return Number.isInteger(n) && n >= 1 ? n : null;
}

/** The first sample's timestamp of a packet of the format, ns; null for a packet of no such size. */
export function firstImuNmeaTimestamp(b: Buffer): bigint | null {
  return imuNmeaMeasurementsOf(b.length) === null ? null : b.readBigUInt64LE(FIRST_MEASUREMENT);
}

/**
 * Moves a recorded packet on by `frames` frames and `deltaNs` (a later pass of a looping replay): frame id,
 * the NMEA time when there is a sentence, every sample's timestamp. The CRC is the caller's.
 */
export function moveImuNmeaPacket(b: Buffer, header: HeaderType, frames: number, deltaNs: bigint): void {
  const measurements = imuNmeaMeasurementsOf(b.length) ?? 0;
  const frameId = header === 'STANDARD' ? b.readUInt16LE(2) : b.readUInt32LE(4);
  writeFrameHeader(b, header, frameId + frames, header === 'STANDARD' ? b[12] : b[8]);
  const shift = (o: number) => b.writeBigUInt64LE((b.readBigUInt64LE(o) + deltaNs) & 0xffffffffffffffffn, o);
  if (b.readBigUInt64LE(HEADER_BYTES) !== 0n) shift(HEADER_BYTES);
  for (let k = 0; k < measurements; k++) shift(FIRST_MEASUREMENT + k * IMU_MEASUREMENT_BYTES);
}

export interface ImuMeasurement {
  /** ns of the sensor clock: when the lidar measured column `measurementId`. */
  timestampNs: bigint;
  measurementId: number;
  accelG: readonly [number, number, number];
  gyroDps: readonly [number, number, number];
}

export interface ImuNmeaPacketFormat {
  header: HeaderType;
  measurements: number;
  accelFsr: FullScaleRange;
  gyroFsr: FullScaleRange;
}

/** A NMEA sentence and the sensor time it arrived. */
export interface NmeaInput {
  sentence: string;
  receivedNs: bigint;
}

/** A packet's bytes, with the fields that never change within an initialization already written. */
export function imuNmeaTemplate(format: ImuNmeaPacketFormat, id: SensorIdentity): Buffer {
  const b = Buffer.alloc(imuNmeaPacketBytes(format.measurements));
  writeConstantHeader(b, format.header, PACKET_TYPE.imu, id);
  return b;
}

/**
 * Fills `b` (a template of `format`): each measurement as the unit's IMU reads it (clipped to the full-scale
 * range and quantized to its 16-bit resolution, then in m/s² and rad/s), the sentence or a zero block.
 */
export function encodeImuNmeaPacket(
  b: Buffer,
  format: ImuNmeaPacketFormat,
  frameId: number,
  alertFlags: number,
  measurements: readonly ImuMeasurement[],
  nmea: NmeaInput | null,
): Buffer {
  writeFrameHeader(b, format.header, frameId, alertFlags);
  b.fill(0, HEADER_BYTES, FIRST_MEASUREMENT);
  if (nmea) {
    b.writeBigUInt64LE(nmea.receivedNs, HEADER_BYTES);
    b.write(nmea.sentence.slice(0, NMEA_SENTENCE_BYTES), HEADER_BYTES + 8, 'latin1');
  }
  const a = ACCEL_COUNTS_PER_G[format.accelFsr];
  const g = GYRO_COUNTS_PER_DPS[format.gyroFsr];
  for (let k = 0; k < format.measurements; k++) {
    const o = FIRST_MEASUREMENT + k * IMU_MEASUREMENT_BYTES;
    const m = measurements[k];
    b.writeBigUInt64LE(m.timestampNs, o);
    b.writeUInt16LE(m.measurementId, o + 8);
    b.writeUInt16LE(1, o + 10); // status: valid
    for (let i = 0; i < 3; i++) {
      b.writeFloatLE((counts(m.accelG[i], a) / a) * G_MPS2, o + 12 + 4 * i);
      b.writeFloatLE((counts(m.gyroDps[i], g) / g) * RAD_PER_DEG, o + 24 + 4 * i);
    }
  }
  if (format.header === 'STANDARD') {
    const { lo, hi } = crc64(b, 0, b.length - 8);
    b.writeUInt32LE(lo, b.length - 8);
    b.writeUInt32LE(hi, b.length - 4);
  }
  return b;
}
