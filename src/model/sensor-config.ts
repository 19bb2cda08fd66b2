/**
 * The values configuration parameters can take and the shape of a whole configuration: plain facts
 * shared by the parameter registry (src/config), the device core, the HAL and the packet encoders.
 */
export const LIDAR_PROFILES = [
  'RNG19_RFL8_SIG16_NIR16',
  'RNG19_RFL8_SIG16_NIR16_DUAL',
  'RNG15_RFL8_NIR8',
  'FUSA_RNG15_RFL8_NIR8_DUAL',
] as const;
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

export type LidarProfile = (typeof LIDAR_PROFILES)[number];
export type LidarMode = (typeof LIDAR_MODES)[number];
export type TimestampMode = (typeof TIMESTAMP_MODES)[number];
export type MultipurposeIoMode = (typeof MULTIPURPOSE_IO_MODES)[number];
export type ReturnOrder = (typeof RETURN_ORDERS)[number];
export type Polarity = (typeof POLARITIES)[number];
export type FullScaleRange = (typeof FULL_SCALE_RANGES)[number];
export type OperatingMode = 'NORMAL' | 'STANDBY';

/** Millidegrees in a full turn: the unit of `azimuth_window` and `phase_lock_offset`. */
export const FULL_TURN_MDEG = 360_000;

/** The active, staged or persisted configuration: one value per parameter. */
export interface SensorConfig {
  udp_dest: string;
  udp_port_lidar: number;
  udp_port_imu: number;
  /** LEGACY only on a unit replaying a LEGACY recording (firmware 2.x); the registry accepts it nowhere else. */
  udp_profile_lidar: LidarProfile | 'LEGACY';
  udp_profile_imu: 'LEGACY';
  columns_per_packet: 16;
  return_order: ReturnOrder;
  timestamp_mode: TimestampMode;
  sync_pulse_in_polarity: Polarity;
  nmea_in_polarity: Polarity;
  nmea_ignore_valid_char: 0 | 1;
  nmea_baud_rate: 'BAUD_9600' | 'BAUD_115200';
  nmea_leap_seconds: number;
  multipurpose_io_mode: MultipurposeIoMode;
  sync_pulse_out_polarity: Polarity;
  sync_pulse_out_frequency: number;
  sync_pulse_out_angle: number;
  sync_pulse_out_pulse_width: number;
  operating_mode: OperatingMode;
  lidar_mode: LidarMode;
  azimuth_window: [number, number];
  signal_multiplier: (typeof SIGNAL_MULTIPLIERS)[number];
  phase_lock_enable: boolean;
  phase_lock_offset: number;
  min_range_threshold_cm: (typeof MIN_RANGE_THRESHOLDS_CM)[number];
  gyro_fsr: FullScaleRange;
  accel_fsr: FullScaleRange;
}
export type ParameterName = keyof SensorConfig;
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
