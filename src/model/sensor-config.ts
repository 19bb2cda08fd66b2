/**
 * The values configuration parameters can take and the shape of a whole configuration: plain facts
 * shared by the parameter registry (src/config), the device core, the HAL and the packet encoders.
 */
import { type Static, Type } from '@sinclair/typebox';

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
const OPERATING_MODES = ['NORMAL', 'STANDBY'] as const;
export type OperatingMode = (typeof OPERATING_MODES)[number];

/** Millidegrees in a full turn: the unit of `azimuth_window` and `phase_lock_offset`. */
export const FULL_TURN_MDEG = 360_000;

/** Largest 32-bit signed integer: the upper bound of integers the spec leaves open, so no value overflows firmware. */
const INT32_MAX = 2_147_483_647;

/** A case-sensitive keyword: a plain `enum` so every error can list the allowed values; typed as their union. */
const keyword = <const V extends readonly string[]>(values: V) =>
  Type.Unsafe<V[number]>({ type: 'string', enum: [...values] });
/** A number from a fixed list, typed as their union (keys in the order of TypeBox's own schemas: the document stays byte for byte). */
const oneOfNumbers = <const V extends readonly number[]>(values: V) =>
  Type.Unsafe<V[number]>({ enum: [...values], type: 'number' });
/** An integer range whose values the type names (a plain JSON schema, so errors read "between 0 and 1"). */
const integerAs = <T extends number>(minimum: number, maximum: number) =>
  Type.Unsafe<T>({ minimum, maximum, type: 'integer' });

const PORT = Type.Integer({ minimum: 0, maximum: 65535 });

/**
 * The JSON schema of every parameter's value: the one statement of what a configuration holds. The
 * registry (src/config) validates input against these schemas and adds defaults, descriptions and the
 * GET order; `SensorConfig` is derived from them, so the type and the validation cannot drift apart.
 */
export const PARAMETER_SCHEMAS = {
  /** "", an IPv4 or IPv6 address or a host name (the `udp-destination` format); `@auto` is resolved before validation. */
  udp_dest: Type.String({ maxLength: 253, format: 'udp-destination' }),
  udp_port_lidar: PORT,
  udp_port_imu: PORT,
  udp_profile_lidar: keyword(LIDAR_PROFILES),
  udp_profile_imu: keyword(['LEGACY']),
  columns_per_packet: integerAs<16>(16, 16),
  return_order: keyword(RETURN_ORDERS),
  timestamp_mode: keyword(TIMESTAMP_MODES),
  sync_pulse_in_polarity: keyword(POLARITIES),
  nmea_in_polarity: keyword(POLARITIES),
  nmea_ignore_valid_char: integerAs<0 | 1>(0, 1),
  nmea_baud_rate: keyword(['BAUD_9600', 'BAUD_115200']),
  nmea_leap_seconds: Type.Integer({ minimum: 0, maximum: INT32_MAX }),
  multipurpose_io_mode: keyword(MULTIPURPOSE_IO_MODES),
  sync_pulse_out_polarity: keyword(POLARITIES),
  sync_pulse_out_frequency: Type.Integer({ minimum: 1, maximum: INT32_MAX }),
  sync_pulse_out_angle: Type.Integer({ minimum: 0, maximum: 360 }),
  sync_pulse_out_pulse_width: Type.Integer({ minimum: 1, maximum: INT32_MAX }),
  operating_mode: keyword(OPERATING_MODES),
  lidar_mode: keyword(LIDAR_MODES),
  azimuth_window: Type.Unsafe<[number, number]>(
    Type.Array(Type.Integer({ minimum: 0, maximum: FULL_TURN_MDEG }), { minItems: 2, maxItems: 2 }),
  ),
  signal_multiplier: oneOfNumbers(SIGNAL_MULTIPLIERS),
  phase_lock_enable: Type.Boolean(),
  phase_lock_offset: Type.Integer({ minimum: 0, maximum: FULL_TURN_MDEG }),
  min_range_threshold_cm: oneOfNumbers(MIN_RANGE_THRESHOLDS_CM),
  gyro_fsr: keyword(FULL_SCALE_RANGES),
  accel_fsr: keyword(FULL_SCALE_RANGES),
} as const;

type ParameterSchemas = typeof PARAMETER_SCHEMAS;

/** A configuration as a client may set it: exactly what the schemas accept. */
type AcceptedConfig = { -readonly [N in keyof ParameterSchemas]: Static<ParameterSchemas[N]> };

/**
 * The active, staged or persisted configuration: one value per parameter. It is what clients may set,
 * except that `udp_profile_lidar` is `LEGACY` on a unit replaying a LEGACY recording (firmware 2.x), which
 * no client can ask for.
 */
export type SensorConfig = Omit<AcceptedConfig, 'udp_profile_lidar'> & { udp_profile_lidar: LidarProfile | 'LEGACY' };
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
