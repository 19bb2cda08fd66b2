/**
 * The metadata file of a recording, in the nested form (`GET /api/v1/sensor/metadata`) or the flat
 * legacy form (`get_sensor_info` + `get_beam_intrinsics` + … merged into one object, with `data_format`),
 * normalized to the nested documents. Pure; throws RecordingError naming the missing field.
 */
import { RecordingError } from './recording-error.js';

export interface RecordedMetadata {
  sensorInfo: {
    build_date: string;
    build_rev: string;
    image_rev: string;
    initialization_id: number;
    prod_line: string;
    prod_pn: string;
    prod_sn: string;
  };
  beamIntrinsics: {
    beam_altitude_angles: number[];
    beam_azimuth_angles: number[];
    beam_to_lidar_transform: number[];
    lidar_origin_to_beam_origin_mm: number;
  };
  imuToSensorTransform: number[];
  lidarToSensorTransform: number[];
  calibration: { timestamp: string; valid: boolean };
  dataFormat: {
    column_window: [number, number];
    columns_per_frame: number;
    columns_per_packet: number;
    pixel_shift_by_row: number[];
    pixels_per_column: number;
    udp_profile_imu: string;
    udp_profile_lidar: string;
    /** Firmware 3.2: the lidar packets' header; absent from older recordings (the profile's own header). */
    header_type?: 'STANDARD' | 'FUSA';
  };
  /** config_params as recorded (older firmware omits some parameters). */
  configParams: Record<string, unknown>;
  /** user_data, when the file carries it. */
  userData: string | undefined;
  /**
   * The active zone set zip of a firmware 3.2 unit, as the vendor SDK records it beside the sensor info
   * (`zone_set`, base64); undefined when the file carries none.
   */
  zoneSet: Uint8Array | undefined;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const IDENTITY4 = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];

function field<T>(where: Json, name: string, ok: (v: unknown) => boolean, what: string, fallback?: T): T {
  const v = where[name];
  if (v === undefined && fallback !== undefined) return fallback;
  if (!ok(v)) throw new RecordingError(`metadata: ${name} is missing or not ${what}`);
  return v as T;
}
const str = (o: Json, n: string, fallback?: string) =>
  field<string>(o, n, (v) => typeof v === 'string', 'a string', fallback);
const num = (o: Json, n: string, fallback?: number) =>
  field<number>(o, n, (v) => typeof v === 'number', 'a number', fallback);
const nums = (o: Json, n: string, fallback?: number[]) =>
  field<number[]>(
    o,
    n,
    (v) => Array.isArray(v) && v.every((x) => typeof x === 'number'),
    'a list of numbers',
    fallback,
  );
const obj = (o: Json, n: string) => field<Json>(o, n, isObject, 'an object');

export function parseRecordingMetadata(text: string): RecordedMetadata {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw new RecordingError(`metadata is not JSON: ${(error as Error).message}`);
  }
  if (!isObject(doc)) throw new RecordingError('metadata is not a JSON object');
  return isObject(doc.sensor_info) ? nested(doc) : flat(doc);
}

function nested(doc: Json): RecordedMetadata {
  const info = obj(doc, 'sensor_info');
  const beams = obj(doc, 'beam_intrinsics');
  const format = obj(doc, 'lidar_data_format');
  const config = isObject(doc.config_params) ? doc.config_params : {};
  const calibration =
    isObject(doc.calibration_status) && isObject(doc.calibration_status.reflectivity)
      ? doc.calibration_status.reflectivity
      : {};
  return {
    sensorInfo: sensorInfoOf(info),
    beamIntrinsics: beamsOf(beams),
    imuToSensorTransform: isObject(doc.imu_intrinsics)
      ? nums(doc.imu_intrinsics, 'imu_to_sensor_transform')
      : IDENTITY4,
    lidarToSensorTransform: isObject(doc.lidar_intrinsics)
      ? nums(doc.lidar_intrinsics, 'lidar_to_sensor_transform')
      : IDENTITY4,
    calibration: { timestamp: str(calibration, 'timestamp', ''), valid: calibration.valid !== false },
    dataFormat: formatOf(format, config),
    configParams: config,
    userData: typeof doc.user_data === 'string' ? doc.user_data : undefined,
    zoneSet: zoneSetOf(doc),
  };
}

/** Flat legacy form: sensor_info, beam intrinsics and transforms at the top level, `data_format` beside them. */
function flat(doc: Json): RecordedMetadata {
  if (!('prod_sn' in doc) || !isObject(doc.data_format)) {
    throw new RecordingError(
      'metadata has neither sensor_info (nested form) nor prod_sn and data_format (flat legacy form)',
    );
  }
  const format = doc.data_format;
  const config: Json = {
    lidar_mode: doc.lidar_mode,
    udp_port_lidar: doc.udp_port_lidar,
    udp_port_imu: doc.udp_port_imu,
    udp_profile_lidar: format.udp_profile_lidar,
  };
  for (const k of Object.keys(config)) if (config[k] === undefined) delete config[k];
  return {
    sensorInfo: sensorInfoOf(doc),
    beamIntrinsics: beamsOf(doc),
    imuToSensorTransform: nums(doc, 'imu_to_sensor_transform', IDENTITY4),
    lidarToSensorTransform: nums(doc, 'lidar_to_sensor_transform', IDENTITY4),
    calibration: { timestamp: '', valid: true },
    dataFormat: formatOf(format, config),
    configParams: config,
    userData: undefined,
    zoneSet: undefined,
  };
}

function zoneSetOf(doc: Json): Uint8Array | undefined {
  const v = doc.zone_set;
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(v))
    throw new RecordingError('metadata: zone_set is not a base64 string (the zone set zip)');
  return new Uint8Array(Buffer.from(v, 'base64'));
}

function sensorInfoOf(info: Json): RecordedMetadata['sensorInfo'] {
  return {
    build_date: str(info, 'build_date', ''),
    build_rev: str(info, 'build_rev', ''),
    image_rev: str(info, 'image_rev', ''),
    initialization_id: num(info, 'initialization_id', 0),
    prod_line: str(info, 'prod_line'),
    prod_pn: str(info, 'prod_pn', ''),
    prod_sn: String(
      field<string | number>(info, 'prod_sn', (v) => typeof v === 'string' || typeof v === 'number', 'a serial number'),
    ),
  };
}

function beamsOf(beams: Json): RecordedMetadata['beamIntrinsics'] {
  const originMm = num(beams, 'lidar_origin_to_beam_origin_mm', 0);
  return {
    beam_altitude_angles: nums(beams, 'beam_altitude_angles'),
    beam_azimuth_angles: nums(beams, 'beam_azimuth_angles'),
    beam_to_lidar_transform: nums(beams, 'beam_to_lidar_transform', [
      1,
      0,
      0,
      originMm,
      0,
      1,
      0,
      0,
      0,
      0,
      1,
      0,
      0,
      0,
      0,
      1,
    ]),
    lidar_origin_to_beam_origin_mm: originMm,
  };
}

function formatOf(format: Json, config: Json): RecordedMetadata['dataFormat'] {
  const cpf = num(format, 'columns_per_frame');
  const window = nums(format, 'column_window', [0, cpf - 1]);
  return {
    column_window: [window[0], window[1]],
    columns_per_frame: cpf,
    columns_per_packet: num(format, 'columns_per_packet', 16),
    pixel_shift_by_row: nums(format, 'pixel_shift_by_row'),
    pixels_per_column: num(format, 'pixels_per_column'),
    udp_profile_imu: str(format, 'udp_profile_imu', 'LEGACY'),
    udp_profile_lidar: str(
      format,
      'udp_profile_lidar',
      typeof config.udp_profile_lidar === 'string' ? config.udp_profile_lidar : 'LEGACY',
    ),
    ...(format.header_type === 'FUSA' || format.header_type === 'STANDARD' ? { header_type: format.header_type } : {}),
  };
}
