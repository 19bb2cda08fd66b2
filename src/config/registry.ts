/**
 * The parameter registry: every configuration parameter of the sensor, described once.
 *
 * Validation (per value and cross-field), defaults, the DELETE reset, deprecated aliases, the
 * GET key order and the README parameter table are all derived from this file and the value schemas
 * in model/sensor-config.ts. Adding a parameter is its schema there and its entry in FACTS here: the
 * type checker refuses the one without the other.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { FULL_TURN_MDEG, PARAMETER_SCHEMAS, type ParameterName, type SensorConfig } from '../model/index.js';

export interface ParameterDefinition<N extends ParameterName = ParameterName> {
  name: N;
  /** JSON schema of one value (model/sensor-config.ts: the schemas the `SensorConfig` type is derived from). */
  schema: TSchema;
  default: SensorConfig[N];
  /** Read-only parameters are returned by GET and accepted back only with their current value. */
  readOnly?: boolean;
  /** One line for the README table and error messages. */
  description: string;
  /** The firmware that introduced it: a unit of an older firmware neither reports nor accepts it. */
  sinceFirmware?: '3.2';
}

type ParameterFacts<N extends ParameterName> = Omit<ParameterDefinition<N>, 'name' | 'schema'>;

/**
 * What the registry adds to each parameter's schema, keyed by name: the type demands every parameter
 * exactly once. The keys are in the order a real sensor (firmware 3.1) returns them; GET keeps it.
 * `udp_dest` accepts "", an IPv4 or IPv6 address or a host name; `@auto` is handled before validation
 * (see config-service) because it depends on the caller's address.
 */
const FACTS: { [N in ParameterName]: ParameterFacts<N> } = {
  udp_dest: {
    default: '',
    description:
      'Destination of lidar and IMU UDP traffic: IPv4/IPv6 address or host name; "" sends nothing; "@auto" (POST only) = the caller',
  },
  udp_port_lidar: {
    default: 7502,
    description: 'UDP port on udp_dest for lidar data; 0 turns the lidar stream off',
  },
  udp_port_imu: {
    default: 7503,
    description: 'UDP port on udp_dest for IMU data; 0 turns the IMU stream off',
  },
  udp_dest_zm: {
    sinceFirmware: '3.2',
    default: '',
    description:
      'Destination of zone packets (Zone Monitor, firmware 3.2): as udp_dest; "" sends none; "@auto" (POST only) = the caller',
  },
  udp_port_zm: {
    sinceFirmware: '3.2',
    // The vendor's manual (Zone Monitor, Deployment Workflow): zone packets are sent once the ZM UDP port is
    // set "to any non-zero value"; a unit comes with none.
    default: 0,
    description: 'UDP port on udp_dest_zm for zone packets; 0 (the default) sends none',
  },
  udp_multicast_ttl: {
    sinceFirmware: '3.2',
    default: 1,
    description: 'TTL of lidar and IMU datagrams when udp_dest is a multicast group (1-255)',
  },
  udp_multicast_ttl_zm: {
    sinceFirmware: '3.2',
    default: 1,
    description: 'TTL of zone packets when udp_dest_zm is a multicast group (1-255)',
  },
  udp_profile_lidar: {
    default: 'RNG19_RFL8_SIG16_NIR16',
    description: 'Layout of lidar packets',
  },
  udp_profile_imu: {
    default: 'LEGACY',
    description: 'Layout of IMU packets',
  },
  header_type: {
    sinceFirmware: '3.2',
    default: 'STANDARD',
    description: 'Packet header of the lidar profiles',
  },
  columns_per_packet: {
    default: 16,
    readOnly: true,
    description: 'Measurement blocks per lidar packet (read-only; accepted back unchanged)',
  },
  return_order: {
    default: 'STRONGEST_TO_WEAKEST',
    description: 'Order of returns; selects the reported return in single-return profiles',
  },
  timestamp_mode: {
    default: 'TIME_FROM_INTERNAL_OSC',
    description: 'Clock used to timestamp measurements',
  },
  sync_pulse_in_polarity: {
    default: 'ACTIVE_HIGH',
    description: 'Polarity of the SYNC_PULSE_IN pin',
  },
  nmea_in_polarity: {
    default: 'ACTIVE_HIGH',
    description: 'Polarity of the NMEA UART input',
  },
  nmea_ignore_valid_char: {
    default: 0,
    description: '1: use NMEA messages even when their valid character is not set',
  },
  nmea_baud_rate: {
    default: 'BAUD_9600',
    description: 'Baud rate of the NMEA UART input',
  },
  nmea_leap_seconds: {
    default: 0,
    description: 'Leap seconds added to NMEA time; 0 for Unix epoch time',
  },
  multipurpose_io_mode: {
    default: 'OFF',
    description: 'Mode of the MULTIPURPOSE_IO pin',
  },
  sync_pulse_out_polarity: {
    default: 'ACTIVE_HIGH',
    description: 'Polarity of SYNC_PULSE_OUT',
  },
  sync_pulse_out_frequency: {
    default: 1,
    description: 'SYNC_PULSE_OUT rate in Hz',
  },
  sync_pulse_out_angle: {
    default: 360,
    description: 'Degrees traversed between output pulses',
  },
  sync_pulse_out_pulse_width: {
    default: 10,
    description: 'SYNC_PULSE_OUT pulse width in ms (> 0)',
  },
  operating_mode: {
    default: 'NORMAL',
    description: 'NORMAL, or STANDBY (motor stopped, lasers off, no data)',
  },
  lidar_mode: {
    default: '1024x10',
    description: 'Horizontal resolution x rotation rate (Hz)',
  },
  azimuth_window: {
    default: [0, FULL_TURN_MDEG],
    description: '[min, max] millidegrees; only data inside is sent; a start above the end wraps through 0',
  },
  lidar_frame_azimuth_offset: {
    sinceFirmware: '3.2',
    default: 0,
    description: 'Azimuth in millidegrees at which each frame starts (its first packet holds that column)',
  },
  signal_multiplier: {
    default: 1,
    description: 'Signal multiplier 0.25, 0.5, 1, 2 or 3; limits the azimuth window width (360/360/360/180/120 deg)',
  },
  phase_lock_enable: {
    default: false,
    description: 'Enables phase locking',
  },
  phase_lock_offset: {
    default: 0,
    description: 'Phase lock angle in millidegrees',
  },
  min_range_threshold_cm: {
    default: 50,
    description: 'Minimum reported range: 0, 30 or 50 cm',
  },
  gyro_fsr: {
    default: 'NORMAL',
    description: 'Gyroscope range: NORMAL ±250 dps, EXTENDED ±2000 dps',
  },
  accel_fsr: {
    default: 'NORMAL',
    description: 'Accelerometer range: NORMAL ±2 g, EXTENDED ±16 g',
  },
  imu_packets_per_frame: {
    sinceFirmware: '3.2',
    default: 8,
    description: 'IMU packets per lidar frame with udp_profile_imu ACCEL32_GYRO32_NMEA: 1, 2, 4, 8 or 16',
  },
  bloom_reduction_optimization: {
    sinceFirmware: '3.2',
    default: 'BALANCED',
    description: 'BALANCED or MINIMIZE_FALSE_POSITIVES; kept and reported (the simulated scene has no bloom)',
  },
};

/** All parameters, in the key order a real sensor returns them. */
export const PARAMETERS: readonly ParameterDefinition[] = (Object.keys(FACTS) as ParameterName[]).map((name) => ({
  name,
  schema: PARAMETER_SCHEMAS[name],
  ...FACTS[name],
}));

export const PARAMETER_NAMES: readonly ParameterName[] = PARAMETERS.map((p) => p.name);
const BY_NAME = new Map<string, ParameterDefinition>(PARAMETERS.map((p) => [p.name, p]));

export function findParameter(name: string): ParameterDefinition | undefined {
  return BY_NAME.get(name);
}

export function isParameterName(name: string): name is ParameterName {
  return BY_NAME.has(name);
}

/** The parameters a unit of firmware `version` ("3.1.0") does not have: newer firmware introduced them. */
export function parametersNewerThan(version: string): ReadonlySet<ParameterName> {
  const [major, minor] = version.split('.').map(Number);
  return new Set(
    PARAMETERS.filter((p) => {
      if (!p.sinceFirmware) return false;
      const [sinceMajor, sinceMinor] = p.sinceFirmware.split('.').map(Number);
      return major < sinceMajor || (major === sinceMajor && minor < sinceMinor);
    }).map((p) => p.name),
  );
}

/**
 * Values a parameter older than firmware 3.2 has gained in 3.2: a unit of older firmware refuses them as it refuses
 * any value it does not know. (The ZONE16 lidar profiles stay accepted on every line: docs/udp-packets.md.)
 */
const VALUES_SINCE_FIRMWARE_32: Partial<Record<ParameterName, readonly unknown[]>> = {
  udp_profile_lidar: ['RNG15_RFL8_NIR8_DUAL', 'RNG15_RFL8_WIN8'],
  udp_profile_imu: ['ACCEL32_GYRO32_NMEA'],
};

/** The values a unit of firmware `version` does not have, by parameter (parametersNewerThan for values). */
export function valuesNewerThan(version: string): ReadonlyMap<string, readonly unknown[]> {
  const [major, minor] = version.split('.').map(Number);
  const older = major < 3 || (major === 3 && minor < 2);
  return new Map(older ? Object.entries(VALUES_SINCE_FIRMWARE_32) : []);
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
