/**
 * Sensor metadata: `GET /api/v1/sensor/metadata` and its seven sections. The documents come from the
 * device core's per-initialization cache (src/sensor/metadata.ts) and go out as JSON text cached with them.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { TSchema } from '@sinclair/typebox';
import type { Sensor } from '../sensor/sensor.js';
import {
  BeamIntrinsicsSchema,
  CalibrationStatusSchema,
  ImuDataFormatSchema,
  ImuIntrinsicsSchema,
  LidarDataFormatSchema,
  LidarIntrinsicsSchema,
  MetadataSchema,
  SensorInfoSchema,
} from '../sensor/metadata-documents.js';
import type { SensorMetadata } from '../sensor/metadata.js';
import { sendCachedJson } from './cached-json.js';

const SECTIONS: readonly [path: string, schema: TSchema, read: (m: SensorMetadata) => object][] = [
  ['sensor_info', SensorInfoSchema, (m) => m.sensorInfo()],
  ['lidar_data_format', LidarDataFormatSchema, (m) => m.lidarDataFormat()],
  ['imu_data_format', ImuDataFormatSchema, (m) => m.imuDataFormat()],
  ['beam_intrinsics', BeamIntrinsicsSchema, (m) => m.beamIntrinsics()],
  ['imu_intrinsics', ImuIntrinsicsSchema, (m) => m.imuIntrinsics()],
  ['lidar_intrinsics', LidarIntrinsicsSchema, (m) => m.lidarIntrinsics()],
  ['calibration_status', CalibrationStatusSchema, (m) => m.calibrationStatus()],
];

export const metadataRoutes: FastifyPluginAsync<{ sensor: Sensor }> = async (app, { sensor }) => {
  const metadata = sensor.metadata;
  // The schemas document the responses; the bodies are the cached documents' JSON text (src/routes/cached-json.ts).
  app.get('/api/v1/sensor/metadata', { schema: { response: { 200: MetadataSchema } } }, async (_request, reply) => sendCachedJson(reply, metadata.all()));
  for (const [section, schema, read] of SECTIONS) {
    app.get(`/api/v1/sensor/metadata/${section}`, { schema: { response: { 200: schema } } }, async (_request, reply) => sendCachedJson(reply, read(metadata)));
  }
};
