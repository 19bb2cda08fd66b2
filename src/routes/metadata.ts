/**
 * Sensor metadata: `GET /api/v1/sensor/metadata` and its seven sections. The documents come from the
 * device core's per-initialization cache (src/core/metadata.ts) and go out as JSON text cached with them.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { TSchema } from '@sinclair/typebox';
import {
  BeamIntrinsicsSchema,
  CalibrationStatusSchema,
  ImuDataFormatSchema,
  ImuIntrinsicsSchema,
  LidarDataFormatSchema,
  LidarIntrinsicsSchema,
  MetadataSchema,
  SensorInfoSchema,
  type SensorMetadata,
} from '../core/index.js';
import { cachedJsonBytes, sendJsonBytes } from './http/cached-json.js';
import { Json, problems } from './api-schemas.js';

const SECTIONS: readonly [path: string, schema: TSchema, read: (m: SensorMetadata) => object][] = [
  ['sensor_info', SensorInfoSchema, (m) => m.sensorInfo()],
  ['lidar_data_format', LidarDataFormatSchema, (m) => m.lidarDataFormat()],
  ['imu_data_format', ImuDataFormatSchema, (m) => m.imuDataFormat()],
  ['beam_intrinsics', BeamIntrinsicsSchema, (m) => m.beamIntrinsics()],
  ['imu_intrinsics', ImuIntrinsicsSchema, (m) => m.imuIntrinsics()],
  ['lidar_intrinsics', LidarIntrinsicsSchema, (m) => m.lidarIntrinsics()],
  ['calibration_status', CalibrationStatusSchema, (m) => m.calibrationStatus()],
];

/** `lidar_data_format` → `getMetadataLidarDataFormat` */
const operationId = (section: string) =>
  `getMetadata${section.replace(/(^|_)([a-z])/g, (_m, _u, c: string) => c.toUpperCase())}`;

export const metadataRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const metadata = app.sensor.metadata;
  const tags = ['metadata'];
  // The schemas document the responses; the bodies are the cached documents' JSON text (src/routes/http/cached-json.ts).
  const metadataPath = '/api/v1/sensor/metadata';
  const all = () => cachedJsonBytes(metadata.all());
  app.get(
    metadataPath,
    {
      schema: {
        operationId: 'getMetadata',
        summary: 'All metadata documents in one',
        tags,
        response: { 200: Json(MetadataSchema, 'The metadata'), ...problems(409) },
      },
      // A document the unit cannot give now (409 while not running) throws, and that is the answer.
      config: { preparedAnswer: all },
    },
    (_request, reply) => {
      sendJsonBytes(reply, all());
    },
  );
  for (const [section, schema, read] of SECTIONS) {
    const sectionPath = `${metadataPath}/${section}`;
    const document = () => cachedJsonBytes(read(metadata));
    app.get(
      sectionPath,
      {
        schema: {
          operationId: operationId(section),
          summary: `The ${section} metadata document`,
          tags,
          response: { 200: Json(schema, `The ${section} document`), ...problems(409) },
        },
        config: { preparedAnswer: document },
      },
      (_request, reply) => {
        sendJsonBytes(reply, document());
      },
    );
  }
};
