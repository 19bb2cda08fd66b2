/**
 * The interface's rules as the validator knows them, written from the sensor interface specification
 * (and, where it says "not shown", from what real units do): the configuration parameters with their
 * allowed values, the members of each document, the lidar modes. Independent of the server's own
 * parameter registry on purpose: the validator judges the server, it does not share its opinions.
 */

export type ValueRule = (value: unknown) => string | undefined;

const keyword =
  (...allowed: string[]): ValueRule =>
  (v) =>
    typeof v === 'string' && allowed.includes(v)
      ? undefined
      : `must be one of ${allowed.join(', ')}; got ${JSON.stringify(v)}`;
const integer =
  (min: number, max = Number.MAX_SAFE_INTEGER): ValueRule =>
  (v) =>
    Number.isInteger(v) && (v as number) >= min && (v as number) <= max
      ? undefined
      : `must be an integer ${min}..${max === Number.MAX_SAFE_INTEGER ? '' : max}; got ${JSON.stringify(v)}`;
const oneOfNumbers =
  (...allowed: number[]): ValueRule =>
  (v) =>
    typeof v === 'number' && allowed.includes(v)
      ? undefined
      : `must be one of ${allowed.join(', ')}; got ${JSON.stringify(v)}`;

export const LIDAR_PROFILES = [
  'RNG19_RFL8_SIG16_NIR16',
  'RNG19_RFL8_SIG16_NIR16_DUAL',
  'RNG15_RFL8_NIR8',
  'FUSA_RNG15_RFL8_NIR8_DUAL',
  'LEGACY',
  // Firmware 3.2's, as the vendor SDK 1.0.1 reads them.
  'RNG19_RFL8_SIG16_NIR16_ZONE16',
  'RNG15_RFL8_NIR8_ZONE16',
  'RNG19_RFL8_SIG16_ZONE16_DUAL',
  'RNG15_RFL8_NIR8_DUAL',
  'RNG15_RFL8_WIN8',
] as const;
/** LEGACY, and firmware 3.2's ACCEL32_GYRO32_NMEA. */
export const IMU_PROFILES = ['LEGACY', 'ACCEL32_GYRO32_NMEA'] as const;
export const LIDAR_MODES = ['512x10', '1024x10', '2048x10', '512x20', '1024x20', '4096x5'] as const;

const IPV4 = /^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}$/;

/** Every configuration parameter of a 3.1 unit, in the order real units list them, with its value rule. */
export const CONFIG_RULES: Record<string, ValueRule> = {
  udp_dest: (v) =>
    v === '' || (typeof v === 'string' && (IPV4.test(v) || /^[0-9a-fA-F:]+$/.test(v) || /^[a-zA-Z0-9.-]+$/.test(v)))
      ? undefined
      : `must be "" or an address; got ${JSON.stringify(v)}`,
  udp_port_lidar: integer(0, 65535),
  udp_port_imu: integer(0, 65535),
  udp_profile_lidar: keyword(...LIDAR_PROFILES),
  udp_profile_imu: keyword(...IMU_PROFILES),
  columns_per_packet: oneOfNumbers(16),
  return_order: keyword('STRONGEST_TO_WEAKEST', 'NEAREST_TO_FARTHEST', 'FARTHEST_TO_NEAREST'),
  timestamp_mode: keyword('TIME_FROM_INTERNAL_OSC', 'TIME_FROM_SYNC_PULSE_IN', 'TIME_FROM_PTP_1588'),
  sync_pulse_in_polarity: keyword('ACTIVE_HIGH', 'ACTIVE_LOW'),
  nmea_in_polarity: keyword('ACTIVE_HIGH', 'ACTIVE_LOW'),
  nmea_ignore_valid_char: integer(0, 1),
  nmea_baud_rate: keyword('BAUD_9600', 'BAUD_115200'),
  nmea_leap_seconds: integer(0),
  multipurpose_io_mode: keyword(
    'OFF',
    'INPUT_NMEA_UART',
    'OUTPUT_FROM_INTERNAL_OSC',
    'OUTPUT_FROM_SYNC_PULSE_IN',
    'OUTPUT_FROM_PTP_1588',
    'OUTPUT_FROM_ENCODER_ANGLE',
  ),
  sync_pulse_out_polarity: keyword('ACTIVE_HIGH', 'ACTIVE_LOW'),
  sync_pulse_out_frequency: integer(1),
  sync_pulse_out_angle: integer(0, 360),
  sync_pulse_out_pulse_width: integer(0),
  operating_mode: keyword('NORMAL', 'STANDBY'),
  lidar_mode: keyword(...LIDAR_MODES),
  azimuth_window: (v) =>
    Array.isArray(v) && v.length === 2 && v.every((n) => Number.isInteger(n) && n >= 0 && n <= 360000)
      ? undefined
      : `must be two integers 0..360000 (millidegrees); got ${JSON.stringify(v)}`,
  signal_multiplier: oneOfNumbers(0.25, 0.5, 1, 2, 3),
  phase_lock_enable: (v) => (typeof v === 'boolean' ? undefined : `must be a boolean; got ${JSON.stringify(v)}`),
  phase_lock_offset: integer(0, 360000),
  min_range_threshold_cm: oneOfNumbers(0, 30, 50),
  gyro_fsr: keyword('NORMAL', 'EXTENDED'),
  accel_fsr: keyword('NORMAL', 'EXTENDED'),
};

/** Values a unit must refuse with 400 (wrong type, out of range, wrong letter case), one per parameter. */
export const REFUSED_VALUES: Record<string, unknown> = {
  udp_dest: 12345,
  udp_port_lidar: 70000,
  udp_port_imu: -1,
  udp_profile_lidar: 'rng19_rfl8_sig16_nir16',
  udp_profile_imu: 'legacy',
  columns_per_packet: 32,
  return_order: 'strongest_to_weakest',
  timestamp_mode: 'TIME_FROM_GPS',
  sync_pulse_in_polarity: 'active_high',
  nmea_in_polarity: 'ACTIVE_MIDDLE',
  nmea_ignore_valid_char: 2,
  nmea_baud_rate: 'BAUD_9601',
  nmea_leap_seconds: -1,
  multipurpose_io_mode: 'off',
  sync_pulse_out_polarity: 'HIGH',
  sync_pulse_out_frequency: 0,
  sync_pulse_out_angle: 361,
  sync_pulse_out_pulse_width: 'ten',
  operating_mode: 'normal',
  lidar_mode: '1024X10',
  azimuth_window: [0, 360000, 5],
  signal_multiplier: 1.2,
  phase_lock_enable: 'yes',
  phase_lock_offset: 360001,
  min_range_threshold_cm: 40,
  gyro_fsr: 'extended',
  accel_fsr: 'HUGE',
};

export function lidarModeShape(mode: string): { columns: number; rateHz: number } | undefined {
  const match = /^(\d+)x(\d+)$/.exec(mode);
  return match ? { columns: Number(match[1]), rateHz: Number(match[2]) } : undefined;
}

export const METADATA_MEMBERS = [
  'beam_intrinsics',
  'calibration_status',
  'config_params',
  'imu_intrinsics',
  'lidar_data_format',
  'lidar_intrinsics',
  'sensor_info',
] as const;

export const DOCUMENT_KEYS: Record<string, readonly string[]> = {
  sensor_info: [
    'build_date',
    'build_rev',
    'image_rev',
    'initialization_id',
    'prod_line',
    'prod_pn',
    'prod_sn',
    'status',
  ],
  lidar_data_format: [
    'column_window',
    'columns_per_frame',
    'columns_per_packet',
    'pixel_shift_by_row',
    'pixels_per_column',
    'udp_profile_imu',
    'udp_profile_lidar',
  ],
  imu_data_format: ['accel_fsr', 'gyro_fsr'],
  beam_intrinsics: [
    'beam_altitude_angles',
    'beam_azimuth_angles',
    'beam_to_lidar_transform',
    'lidar_origin_to_beam_origin_mm',
  ],
  imu_intrinsics: ['imu_to_sensor_transform'],
  lidar_intrinsics: ['lidar_to_sensor_transform'],
  calibration_status: ['reflectivity'],
  firmware: ['commit_pending', 'fw'],
  network: ['carrier', 'duplex', 'ethaddr', 'hostname', 'ipv4', 'ipv6', 'speed', 'speed_override'],
  ipv4: ['addr', 'link_local', 'override'],
  telemetry: [
    'input_current_ma',
    'input_voltage_mv',
    'internal_temperature_deg_c',
    'phase_lock_status',
    'timestamp_ns',
  ],
  time: ['ptp', 'sensor', 'system'],
  time_system: ['monotonic', 'realtime', 'tracking'],
  tracking: [
    'frequency',
    'last_offset',
    'leap_status',
    'ref_time_utc',
    'reference_id',
    'remote_host',
    'residual_frequency',
    'rms_offset',
    'root_delay',
    'root_dispersion',
    'skew',
    'stratum',
    'system_time_offset',
    'update_interval',
  ],
  time_sensor: ['multipurpose_io', 'sync_pulse_in', 'timestamp'],
  ptp: [
    'current_data_set',
    'parent_data_set',
    'port_data_set',
    'profile',
    'time_properties_data_set',
    'time_status_np',
  ],
  alerts: ['active', 'log', 'next_cursor'],
  alert_full: ['active', 'category', 'cursor', 'id', 'level', 'msg', 'msg_verbose', 'realtime'],
  alert_summary_active: ['cursor', 'id', 'realtime'],
  alert_summary_log: ['active', 'cursor', 'id', 'realtime'],
};

/** Missing and unexpected keys of an object against the spec's list; empty when they match. */
export function keyMismatch(value: unknown, expected: readonly string[], optional: readonly string[] = []): string {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return `not an object: ${JSON.stringify(value)?.slice(0, 60)}`;
  const keys = Object.keys(value);
  const missing = expected.filter((k) => !keys.includes(k));
  const extra = keys.filter((k) => !expected.includes(k) && !optional.includes(k));
  return [missing.length ? `missing ${missing.join(', ')}` : '', extra.length ? `unexpected ${extra.join(', ')}` : '']
    .filter(Boolean)
    .join('; ');
}
