/**
 * The sensor metadata documents of the interface (spec: "Sensor metadata objects"), as schemas and as
 * pure builders from (product model, identity, active configuration, status, initialization_id).
 * The schemas are the one description of each shape: the builders' types derive from them and the
 * routes serialize with them.
 */
import { Type, type Static } from '@sinclair/typebox';
import type { SensorConfig } from '../config/index.js';
import {
  IMU_MEASUREMENTS_PER_PACKET,
  buildRev,
  lidarHeaderType,
  reportedImageRev,
  pixelShiftByRow,
  type ProductModel,
  resolveFrameFormat,
  type SensorIdentity,
} from '../model/index.js';
import { SENSOR_STATUSES, type SensorStatus } from './status.js';

const Matrix4x4 = Type.Array(Type.Number(), { minItems: 16, maxItems: 16, description: '4x4 matrix, row-major' });
const FullScaleRange = Type.String({ enum: ['NORMAL', 'EXTENDED'] });

// Key order of every object = the order real units send (alphabetical).
export const SensorInfoSchema = Type.Object({
  build_date: Type.String(),
  build_rev: Type.String(),
  image_rev: Type.String(),
  initialization_id: Type.Integer({ minimum: 0, maximum: 0xffffff }),
  prod_line: Type.String(),
  prod_pn: Type.String(),
  prod_sn: Type.String({ pattern: '^[0-9]+$' }),
  status: Type.String({ enum: [...SENSOR_STATUSES] }),
});
export const LidarDataFormatSchema = Type.Object({
  column_window: Type.Array(Type.Integer(), { minItems: 2, maxItems: 2 }),
  columns_per_frame: Type.Integer(),
  columns_per_packet: Type.Integer(),
  /** Firmware 3.2: frames per second of lidar_mode. */
  fps: Type.Optional(Type.Integer()),
  /** Firmware 3.2: the packet header (config's header_type). */
  header_type: Type.Optional(Type.String()),
  pixel_shift_by_row: Type.Array(Type.Integer()),
  pixels_per_column: Type.Integer(),
  udp_profile_imu: Type.String(),
  udp_profile_lidar: Type.String(),
});
export const ImuDataFormatSchema = Type.Object({
  accel_fsr: FullScaleRange,
  gyro_fsr: FullScaleRange,
  /** Firmware 3.2: samples in one IMU packet (ACCEL32_GYRO32_NMEA; 1 in LEGACY's). */
  imu_measurements_per_packet: Type.Optional(Type.Integer()),
  /** Firmware 3.2: IMU packets per lidar frame (config's imu_packets_per_frame). */
  imu_packets_per_frame: Type.Optional(Type.Integer()),
});
export const BeamIntrinsicsSchema = Type.Object({
  beam_altitude_angles: Type.Array(Type.Number()),
  beam_azimuth_angles: Type.Array(Type.Number()),
  beam_to_lidar_transform: Matrix4x4,
  lidar_origin_to_beam_origin_mm: Type.Number(),
});
export const ImuIntrinsicsSchema = Type.Object({ imu_to_sensor_transform: Matrix4x4 });
export const LidarIntrinsicsSchema = Type.Object({ lidar_to_sensor_transform: Matrix4x4 });
export const CalibrationStatusSchema = Type.Object({
  reflectivity: Type.Object({ timestamp: Type.String(), valid: Type.Boolean() }),
});
export const MetadataSchema = Type.Object({
  beam_intrinsics: BeamIntrinsicsSchema,
  calibration_status: CalibrationStatusSchema,
  // The configuration object: its own shape is the parameter registry's business.
  config_params: Type.Object({}, { additionalProperties: true }),
  imu_data_format: ImuDataFormatSchema,
  imu_intrinsics: ImuIntrinsicsSchema,
  lidar_data_format: LidarDataFormatSchema,
  lidar_intrinsics: LidarIntrinsicsSchema,
  sensor_info: SensorInfoSchema,
});

export type SensorInfo = Static<typeof SensorInfoSchema> & { status: SensorStatus };
export type LidarDataFormat = Static<typeof LidarDataFormatSchema> & { column_window: [number, number] };
export type ImuDataFormat = Static<typeof ImuDataFormatSchema>;
export type BeamIntrinsics = Static<typeof BeamIntrinsicsSchema>;
export type ImuIntrinsics = Static<typeof ImuIntrinsicsSchema>;
export type LidarIntrinsics = Static<typeof LidarIntrinsicsSchema>;
export type CalibrationStatus = Static<typeof CalibrationStatusSchema>;
export interface Metadata {
  beam_intrinsics: BeamIntrinsics;
  calibration_status: CalibrationStatus;
  config_params: SensorConfig;
  imu_data_format: ImuDataFormat;
  imu_intrinsics: ImuIntrinsics;
  lidar_data_format: LidarDataFormat;
  lidar_intrinsics: LidarIntrinsics;
  sensor_info: SensorInfo;
}

export function sensorInfo(identity: SensorIdentity, status: SensorStatus, initializationId: number): SensorInfo {
  const recorded = identity.recordedFirmware;
  return {
    build_date: recorded?.buildDate ?? identity.firmware.buildDate,
    build_rev: recorded?.buildRev ?? buildRev(identity.firmware),
    image_rev: reportedImageRev(identity),
    initialization_id: initializationId,
    prod_line: identity.product.prodLine,
    prod_pn: identity.product.prodPn,
    prod_sn: identity.serialNumber,
    status,
  };
}

/**
 * `config` is as the unit shows it: a unit of firmware 3.2 has `header_type`, and with it the keys 3.2 added to the
 * data formats; an older one has neither.
 */
export function lidarDataFormat(product: ProductModel, config: SensorConfig): LidarDataFormat {
  const { columnsPerFrame: cpf, columnWindow, frameRateHz } = resolveFrameFormat(product, config);
  return {
    column_window: columnWindow,
    columns_per_frame: cpf,
    columns_per_packet: config.columns_per_packet,
    ...(firmware32(config)
      ? { fps: frameRateHz, header_type: lidarHeaderType(config.udp_profile_lidar, config.header_type) }
      : {}),
    pixel_shift_by_row: pixelShiftByRow(product.beamAzimuthDeg, cpf),
    pixels_per_column: product.channels,
    udp_profile_imu: config.udp_profile_imu,
    udp_profile_lidar: config.udp_profile_lidar,
  };
}

export function imuDataFormat(config: SensorConfig): ImuDataFormat {
  return {
    accel_fsr: config.accel_fsr,
    gyro_fsr: config.gyro_fsr,
    ...(firmware32(config)
      ? {
          imu_measurements_per_packet: IMU_MEASUREMENTS_PER_PACKET[config.udp_profile_imu],
          imu_packets_per_frame: config.imu_packets_per_frame,
        }
      : {}),
  };
}

/** Whether the shown configuration is a firmware 3.2 unit's (an older one's lacks the 3.2 parameters). */
const firmware32 = (config: Partial<SensorConfig>) => config.header_type !== undefined;

export function beamIntrinsics(product: ProductModel): BeamIntrinsics {
  return {
    beam_altitude_angles: [...product.beamAltitudeDeg],
    beam_azimuth_angles: [...product.beamAzimuthDeg],
    beam_to_lidar_transform: [...product.beamToLidarTransform],
    lidar_origin_to_beam_origin_mm: product.lidarOriginToBeamOriginMm,
  };
}

export function imuIntrinsics(product: ProductModel): ImuIntrinsics {
  return { imu_to_sensor_transform: [...product.imuToSensorTransform] };
}

export function lidarIntrinsics(product: ProductModel): LidarIntrinsics {
  return { lidar_to_sensor_transform: [...product.lidarToSensorTransform] };
}

export function calibrationStatus(identity: SensorIdentity): CalibrationStatus {
  return { reflectivity: { timestamp: identity.calibrationTimestamp, valid: true } };
}
