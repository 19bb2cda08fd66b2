/**
 * The JSON schema of every configuration parameter's value, and the configuration type derived from them.
 * Apart from the value lists (sensor-config.ts) because TypeBox is needed only where configurations are
 * validated or described: the data-plane worker, which uses the value lists, loads less code (docs/benchmarks.md, figures behind design choices).
 */
import { type Static, Type } from '@sinclair/typebox';
import {
  BLOOM_REDUCTION_OPTIMIZATIONS,
  FULL_SCALE_RANGES,
  HEADER_TYPES,
  IMU_PACKETS_PER_FRAME,
  IMU_PROFILES,
  FULL_TURN_MDEG,
  LIDAR_MODES,
  LIDAR_PROFILES,
  type LidarProfile,
  MIN_RANGE_THRESHOLDS_CM,
  MULTIPURPOSE_IO_MODES,
  OPERATING_MODES,
  POLARITIES,
  RETURN_ORDERS,
  SIGNAL_MULTIPLIERS,
  TIMESTAMP_MODES,
} from './sensor-config.js';

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
/** An IPv4 TTL a multicast datagram may leave with (0 would keep it on the host). */
const MULTICAST_TTL = Type.Integer({ minimum: 1, maximum: 255 });

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
  /** As udp_dest, for zone packets (firmware 3.2's Zone Monitor); `@auto` is resolved before validation. */
  udp_dest_zm: Type.String({ maxLength: 253, format: 'udp-destination' }),
  udp_port_zm: PORT,
  udp_profile_lidar: keyword(LIDAR_PROFILES),
  udp_profile_imu: keyword(IMU_PROFILES),
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
  udp_multicast_ttl: MULTICAST_TTL,
  udp_multicast_ttl_zm: MULTICAST_TTL,
  header_type: keyword(HEADER_TYPES),
  imu_packets_per_frame: oneOfNumbers(IMU_PACKETS_PER_FRAME),
  lidar_frame_azimuth_offset: Type.Integer({ minimum: 0, maximum: FULL_TURN_MDEG }),
  bloom_reduction_optimization: keyword(BLOOM_REDUCTION_OPTIMIZATIONS),
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
