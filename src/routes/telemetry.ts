/** `GET /api/v1/sensor/telemetry`: a fresh sample from the HAL's telemetry source, through the threshold monitor. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { PHASE_LOCK_STATUSES } from '../core/index.js';
import { Json, problems } from './api-schemas.js';

// Quantities the unit cannot measure (a board without a power monitor) are absent, not invented.
// phase_lock_status and timestamp_ns are always present, but the serializer writes required keys
// first, so nothing is marked required here to keep the spec's key order.
// timestamp_ns is a bigint in the reading: the integer serializer writes it exactly.
export const TelemetrySchema = Type.Object({
  input_current_ma: Type.Optional(Type.Integer()),
  input_voltage_mv: Type.Optional(Type.Integer()),
  internal_temperature_deg_c: Type.Optional(Type.Integer()),
  phase_lock_status: Type.Optional(Type.String({ enum: [...PHASE_LOCK_STATUSES] })),
  timestamp_ns: Type.Optional(
    Type.Unsafe<bigint>(Type.Integer({ minimum: 0, description: 'sensor clock at collection, ns' })),
  ),
});

export const telemetryRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const sensor = app.sensor;
  app.get(
    '/api/v1/sensor/telemetry',
    {
      schema: {
        operationId: 'getTelemetry',
        summary: 'A fresh telemetry sample',
        tags: ['status'],
        response: {
          200: Json(TelemetrySchema, 'Measured quantities; those the unit cannot measure are absent', {
            input_current_ma: 662,
            input_voltage_mv: 23679,
            internal_temperature_deg_c: 25,
            phase_lock_status: 'DISABLED',
            timestamp_ns: 692333366,
          }),
          ...problems(),
        },
      },
    },
    async () => sensor.telemetry.read(),
  );
};
