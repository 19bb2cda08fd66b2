/**
 * The values configuration parameters can take: plain facts shared by the parameter registry (src/config),
 * the device core, the HAL and the packet encoders. The shape of a whole configuration, `SensorConfig`, is
 * derived from the parameters' schemas in parameter-schemas.ts.
 */
export const LIDAR_PROFILES = [
  'RNG19_RFL8_SIG16_NIR16',
  'RNG19_RFL8_SIG16_NIR16_DUAL',
  'RNG15_RFL8_NIR8',
  'FUSA_RNG15_RFL8_NIR8_DUAL',
  // Firmware 3.2's Zone Monitor profiles: each pixel also carries the bits of the live zones holding it.
  'RNG19_RFL8_SIG16_NIR16_ZONE16',
  'RNG15_RFL8_NIR8_ZONE16',
  'RNG19_RFL8_SIG16_ZONE16_DUAL',
  // Firmware 3.2's low-bandwidth dual return (FUSA_RNG15_RFL8_NIR8_DUAL's block) and window profile.
  'RNG15_RFL8_NIR8_DUAL',
  'RNG15_RFL8_WIN8',
] as const;
/** LEGACY: one sample per 48-byte packet at 100 Hz; ACCEL32_GYRO32_NMEA (firmware 3.2): imu_packets_per_frame per frame. */
export const IMU_PROFILES = ['LEGACY', 'ACCEL32_GYRO32_NMEA'] as const;
/** Samples in one IMU packet (imu_data_format.imu_measurements_per_packet of firmware 3.2; 8 on a real 3.2.0 unit). */
export const IMU_MEASUREMENTS_PER_PACKET: Readonly<Record<ImuProfile, number>> = { LEGACY: 1, ACCEL32_GYRO32_NMEA: 8 };
export const LIDAR_MODES = ['512x10', '1024x10', '2048x10', '512x20', '1024x20'] as const;
export const TIMESTAMP_MODES = ['TIME_FROM_INTERNAL_OSC', 'TIME_FROM_SYNC_PULSE_IN', 'TIME_FROM_PTP_1588'] as const;
export const MULTIPURPOSE_IO_MODES = [
  'OFF',
  'INPUT_NMEA_UART',
  'OUTPUT_FROM_INTERNAL_OSC',
  'OUTPUT_FROM_SYNC_PULSE_IN',
  'OUTPUT_FROM_PTP_1588',
  'OUTPUT_FROM_ENCODER_ANGLE',
] as const;
export const RETURN_ORDERS = ['STRONGEST_TO_WEAKEST', 'NEAREST_TO_FARTHEST', 'FARTHEST_TO_NEAREST'] as const;
export const POLARITIES = ['ACTIVE_HIGH', 'ACTIVE_LOW'] as const;
export const FULL_SCALE_RANGES = ['NORMAL', 'EXTENDED'] as const;
export const SIGNAL_MULTIPLIERS = [0.25, 0.5, 1, 2, 3] as const;
export const MIN_RANGE_THRESHOLDS_CM = [0, 30, 50] as const;
/** Firmware 3.2: how the unit trades bloom (glare around retro-reflectors) against dropped returns. */
export const BLOOM_REDUCTION_OPTIMIZATIONS = ['BALANCED', 'MINIMIZE_FALSE_POSITIVES'] as const;
/** Firmware 3.2: the packet header of every non-LEGACY lidar profile (FUSA: 32-bit frame id, no CRC). */
export const HEADER_TYPES = ['STANDARD', 'FUSA'] as const;
/** Firmware 3.2's ACCEL32_GYRO32_NMEA: IMU packets per lidar frame (a divisor of every frame's packet count). */
export const IMU_PACKETS_PER_FRAME = [1, 2, 4, 8, 16] as const;

export type LidarProfile = (typeof LIDAR_PROFILES)[number];
export type ImuProfile = (typeof IMU_PROFILES)[number];
export type LidarMode = (typeof LIDAR_MODES)[number];
export type TimestampMode = (typeof TIMESTAMP_MODES)[number];
export type MultipurposeIoMode = (typeof MULTIPURPOSE_IO_MODES)[number];
export type ReturnOrder = (typeof RETURN_ORDERS)[number];
export type Polarity = (typeof POLARITIES)[number];
export type FullScaleRange = (typeof FULL_SCALE_RANGES)[number];
export type HeaderType = (typeof HEADER_TYPES)[number];

/**
 * The header a profile's packets carry: FUSA_RNG15_RFL8_NIR8_DUAL's is always FUSA (as on firmware 3.1, where
 * no header_type exists); any other profile's is header_type's (firmware 3.2).
 */
export function lidarHeaderType(profile: string, headerType: HeaderType): HeaderType {
  return profile === 'FUSA_RNG15_RFL8_NIR8_DUAL' ? 'FUSA' : headerType;
}
export const OPERATING_MODES = ['NORMAL', 'STANDBY'] as const;
export type OperatingMode = (typeof OPERATING_MODES)[number];

/** Millidegrees in a full turn: the unit of `azimuth_window` and `phase_lock_offset`. */
export const FULL_TURN_MDEG = 360_000;

/** The largest `azimuth_window` width, in millidegrees, that a `signal_multiplier` allows. */
export function maxAzimuthWidthMdeg(signalMultiplier: number): number {
  if (signalMultiplier >= 3) return 120_000;
  if (signalMultiplier >= 2) return 180_000;
  return FULL_TURN_MDEG;
}

/** Width of an azimuth window in millidegrees; a window whose start is above its end wraps through 0. */
export function azimuthWindowWidthMdeg([start, end]: readonly [number, number]): number {
  return end >= start ? end - start : FULL_TURN_MDEG - start + end;
}
