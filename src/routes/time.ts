/** The time resources: `GET /api/v1/time`, its three members, and `GET/PUT /api/v1/time/ptp/profile`. */
import type { FastifyPluginAsync } from 'fastify';
import type { Sensor } from '../sensor/sensor.js';
import { PtpSchema, SensorTimeSchema, SystemTimeSchema, TimeSchema, TrackingSchema } from './time-schemas.js';
import { cachedSerializer, schemaSerializer } from './schema-serializer.js';
import type { PtpTime, SensorTime, SystemTime } from '../sensor/time-service.js';

export const timeRoutes: FastifyPluginAsync<{ sensor: Sensor }> = async (app, { sensor }) => {
  const time = sensor.time;
  // Pollers hit GET /time often: the PTP data sets and the tracking report change about once a second
  // at most and stay the same objects meanwhile, so their JSON is made once per object; only the
  // clocks and the sensor section are serialized per request. The schema still documents the response.
  const ptpText = cachedSerializer<PtpTime>(PtpSchema);
  const trackingText = cachedSerializer<SystemTime['tracking']>(TrackingSchema);
  const sensorText = schemaSerializer<SensorTime>(SensorTimeSchema);
  app.get('/api/v1/time', { schema: { response: { 200: TimeSchema } } }, async (_request, reply) => {
    const [ptp, system] = await Promise.all([time.ptp(), time.system()]);
    const systemText = `{"monotonic":${JSON.stringify(system.monotonic)},"realtime":${JSON.stringify(system.realtime)},"tracking":${trackingText(system.tracking)}}`;
    return reply.type('application/json').send(`{"ptp":${ptpText(ptp)},"sensor":${sensorText(time.sensor())},"system":${systemText}}`);
  });
  app.get('/api/v1/time/sensor', { schema: { response: { 200: SensorTimeSchema } } }, async () => time.sensor());
  app.get('/api/v1/time/system', { schema: { response: { 200: SystemTimeSchema } } }, async () => time.system());
  app.get('/api/v1/time/ptp', { schema: { response: { 200: PtpSchema } } }, async () => time.ptp());

  app.get('/api/v1/time/ptp/profile', async (_request, reply) => reply.type('application/json').send(JSON.stringify(time.profile())));
  app.put('/api/v1/time/ptp/profile', async (request, reply) => {
    const profile = await time.setProfile(request.body);
    return reply.type('application/json').send(JSON.stringify(profile));
  });
};
