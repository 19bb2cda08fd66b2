/**
 * The parameter registry: every configuration parameter of the sensor, described once.
 *
 * Validation (per value and cross-field), defaults, the DELETE reset, deprecated aliases, the
 * GET key order and the README parameter table are all derived from this file. Adding a
 * parameter is one entry in PARAMETERS.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import {
  FULL_SCALE_RANGES,
  FULL_TURN_MDEG,
  LIDAR_MODES,
  LIDAR_PROFILES,
  MIN_RANGE_THRESHOLDS_CM,
  MULTIPURPOSE_IO_MODES,
  POLARITIES,
  RETURN_ORDERS,
  SIGNAL_MULTIPLIERS,
  TIMESTAMP_MODES,
  type ParameterName,
  type SensorConfig,
} from '../model/index.js';

/** Largest 32-bit signed integer: the upper bound of integers the spec leaves open, so no value overflows firmware. */
const INT32_MAX = 2_147_483_647;

/** A case-sensitive keyword parameter: a plain `enum` so every error can list the allowed values. */
const keyword = (values: readonly string[]): TSchema => Type.Unsafe<string>({ type: 'string', enum: [...values] });

export interface ParameterDefinition<N extends ParameterName = ParameterName> {
  name: N;
  /** JSON schema of one value. */
  schema: TSchema;
  default: SensorConfig[N];
  /** Read-only parameters are returned by GET and accepted back only with their current value. */
  readOnly?: boolean;
  /** One line for the README table and error messages. */
  description: string;
}

const def = <N extends ParameterName>(d: ParameterDefinition<N>): ParameterDefinition<N> => d;

const PORT_SCHEMA = Type.Integer({ minimum: 0, maximum: 65535 });

/**
 * All parameters, in the key order a real sensor (firmware 3.1) returns them.
 * `udp_dest` accepts "", an IPv4 or IPv6 address or a host name; `@auto` is handled before
 * validation (see config-service) because it depends on the caller's address.
 */
export const PARAMETERS: readonly ParameterDefinition[] = [
  def({
    name: 'udp_dest',
    schema: Type.String({ maxLength: 253, format: 'udp-destination' }),
    default: '',
    description:
      'Destination of lidar and IMU UDP traffic: IPv4/IPv6 address or host name; "" sends nothing; "@auto" (POST only) = the caller',
  }),
  def({
    name: 'udp_port_lidar',
    schema: PORT_SCHEMA,
    default: 7502,
    description: 'UDP port on udp_dest for lidar data; 0 turns the lidar stream off',
  }),
  def({
    name: 'udp_port_imu',
    schema: PORT_SCHEMA,
    default: 7503,
    description: 'UDP port on udp_dest for IMU data; 0 turns the IMU stream off',
  }),
  def({
    name: 'udp_profile_lidar',
    schema: keyword(LIDAR_PROFILES),
    default: 'RNG19_RFL8_SIG16_NIR16',
    description: 'Layout of lidar packets',
  }),
  def({
    name: 'udp_profile_imu',
    schema: keyword(['LEGACY']),
    default: 'LEGACY',
    description: 'Layout of IMU packets',
  }),
  def({
    name: 'columns_per_packet',
    schema: Type.Integer({ minimum: 16, maximum: 16 }),
    default: 16,
    readOnly: true,
    description: 'Measurement blocks per lidar packet (read-only; accepted back unchanged)',
  }),
  def({
    name: 'return_order',
    schema: keyword(RETURN_ORDERS),
    default: 'STRONGEST_TO_WEAKEST',
    description: 'Order of returns; selects the reported return in single-return profiles',
  }),
  def({
    name: 'timestamp_mode',
    schema: keyword(TIMESTAMP_MODES),
    default: 'TIME_FROM_INTERNAL_OSC',
    description: 'Clock used to timestamp measurements',
  }),
  def({
    name: 'sync_pulse_in_polarity',
    schema: keyword(POLARITIES),
    default: 'ACTIVE_HIGH',
    description: 'Polarity of the SYNC_PULSE_IN pin',
  }),
  def({
    name: 'nmea_in_polarity',
    schema: keyword(POLARITIES),
    default: 'ACTIVE_HIGH',
    description: 'Polarity of the NMEA UART input',
  }),
  def({
    name: 'nmea_ignore_valid_char',
    schema: Type.Integer({ minimum: 0, maximum: 1 }),
    default: 0,
    description: '1: use NMEA messages even when their valid character is not set',
  }),
  def({
    name: 'nmea_baud_rate',
    schema: keyword(['BAUD_9600', 'BAUD_115200']),
    default: 'BAUD_9600',
    description: 'Baud rate of the NMEA UART input',
  }),
  def({
    name: 'nmea_leap_seconds',
    schema: Type.Integer({ minimum: 0, maximum: INT32_MAX }),
    default: 0,
    description: 'Leap seconds added to NMEA time; 0 for Unix epoch time',
  }),
  def({
    name: 'multipurpose_io_mode',
    schema: keyword(MULTIPURPOSE_IO_MODES),
    default: 'OFF',
    description: 'Mode of the MULTIPURPOSE_IO pin',
  }),
  def({
    name: 'sync_pulse_out_polarity',
    schema: keyword(POLARITIES),
    default: 'ACTIVE_HIGH',
    description: 'Polarity of SYNC_PULSE_OUT',
  }),
  def({
    name: 'sync_pulse_out_frequency',
    schema: Type.Integer({ minimum: 1, maximum: INT32_MAX }),
    default: 1,
    description: 'SYNC_PULSE_OUT rate in Hz',
  }),
  def({
    name: 'sync_pulse_out_angle',
    schema: Type.Integer({ minimum: 0, maximum: 360 }),
    default: 360,
    description: 'Degrees traversed between output pulses',
  }),
  def({
    name: 'sync_pulse_out_pulse_width',
    schema: Type.Integer({ minimum: 1, maximum: INT32_MAX }),
    default: 10,
    description: 'SYNC_PULSE_OUT pulse width in ms (> 0)',
  }),
  def({
    name: 'operating_mode',
    schema: keyword(['NORMAL', 'STANDBY']),
    default: 'NORMAL',
    description: 'NORMAL, or STANDBY (motor stopped, lasers off, no data)',
  }),
  def({
    name: 'lidar_mode',
    schema: keyword(LIDAR_MODES),
    default: '1024x10',
    description: 'Horizontal resolution x rotation rate (Hz)',
  }),
  def({
    name: 'azimuth_window',
    schema: Type.Array(Type.Integer({ minimum: 0, maximum: FULL_TURN_MDEG }), { minItems: 2, maxItems: 2 }),
    default: [0, FULL_TURN_MDEG],
    description: '[min, max] millidegrees; only data inside is sent; a start above the end wraps through 0',
  }),
  def({
    name: 'signal_multiplier',
    schema: Type.Number({ enum: [...SIGNAL_MULTIPLIERS] }),
    default: 1,
    description: 'Signal multiplier 0.25, 0.5, 1, 2 or 3; limits the azimuth window width (360/360/360/180/120 deg)',
  }),
  def({ name: 'phase_lock_enable', schema: Type.Boolean(), default: false, description: 'Enables phase locking' }),
  def({
    name: 'phase_lock_offset',
    schema: Type.Integer({ minimum: 0, maximum: FULL_TURN_MDEG }),
    default: 0,
    description: 'Phase lock angle in millidegrees',
  }),
  def({
    name: 'min_range_threshold_cm',
    schema: Type.Number({ enum: [...MIN_RANGE_THRESHOLDS_CM] }),
    default: 50,
    description: 'Minimum reported range: 0, 30 or 50 cm',
  }),
  def({
    name: 'gyro_fsr',
    schema: keyword(FULL_SCALE_RANGES),
    default: 'NORMAL',
    description: 'Gyroscope range: NORMAL ±250 dps, EXTENDED ±2000 dps',
  }),
  def({
    name: 'accel_fsr',
    schema: keyword(FULL_SCALE_RANGES),
    default: 'NORMAL',
    description: 'Accelerometer range: NORMAL ±2 g, EXTENDED ±16 g',
  }),
];

export const PARAMETER_NAMES: readonly ParameterName[] = PARAMETERS.map((p) => p.name);
const BY_NAME = new Map<string, ParameterDefinition>(PARAMETERS.map((p) => [p.name, p]));

export function findParameter(name: string): ParameterDefinition | undefined {
  return BY_NAME.get(name);
}

export function isParameterName(name: string): name is ParameterName {
  return BY_NAME.has(name);
}

/** A fresh default configuration (a new object each call: callers may keep it). */
export function defaultConfig(): SensorConfig {
  const config: Record<string, unknown> = {};
  for (const p of PARAMETERS) config[p.name] = structuredClone(p.default);
  return config as unknown as SensorConfig;
}

/** Deprecated parameter names still accepted on input (never returned), mapped to their replacement. */
export interface DeprecatedAlias {
  name: string;
  replacement: ParameterName;
  since: string;
  /** JSON schema of the deprecated value. */
  schema: TSchema;
  /** A value a client would send (documents the name), mapping to the replacement's default. */
  example: unknown;
  toReplacement(value: unknown): unknown;
}

export const DEPRECATED_ALIASES: readonly DeprecatedAlias[] = [
  {
    name: 'udp_ip',
    replacement: 'udp_dest',
    since: 'v2.4',
    schema: Type.String({ maxLength: 253 }),
    example: '127.0.0.1',
    toReplacement: (v) => v,
  },
  {
    name: 'auto_start_flag',
    replacement: 'operating_mode',
    since: 'v2.4',
    schema: Type.Integer({ minimum: 0, maximum: 1 }),
    example: 1,
    toReplacement: (v) => (v === 0 ? 'STANDBY' : 'NORMAL'),
  },
];

export function findDeprecatedAlias(name: string): DeprecatedAlias | undefined {
  return DEPRECATED_ALIASES.find((a) => a.name === name);
}
