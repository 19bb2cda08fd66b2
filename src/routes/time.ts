/** The time resources: `GET /api/v1/time`, its three members, and `GET/PUT /api/v1/time/ptp/profile`. */
import type { FastifyPluginAsync } from 'fastify';
import type { Sensor } from '../sensor/sensor.js';
import { PtpSchema, SensorTimeSchema, SystemTimeSchema, TimeSchema } from './time-schemas.js';
import { timeDocumentText } from './time-document-text.js';
import { sendJsonText } from './cached-json.js';

export const timeRoutes: FastifyPluginAsync<{ sensor: Sensor }> = async (app, { sensor }) => {
  const time = sensor.time;
  // Pollers hit GET /time often: its text is rendered once per change, only the clocks per request.
  const documentText = timeDocumentText(time);
  app.get('/api/v1/time', { schema: { response: { 200: TimeSchema } } }, async (_request, reply) =>
    sendJsonText(reply, await documentText()),
  );
  app.get('/api/v1/time/sensor', { schema: { response: { 200: SensorTimeSchema } } }, async () => time.sensor());
  app.get('/api/v1/time/system', { schema: { response: { 200: SystemTimeSchema } } }, async () => time.system());
  app.get('/api/v1/time/ptp', { schema: { response: { 200: PtpSchema } } }, async () => time.ptp());

  app.get('/api/v1/time/ptp/profile', async (_request, reply) => reply.type('application/json').send(JSON.stringify(time.profile())));
  app.put('/api/v1/time/ptp/profile', async (request, reply) => {
    const profile = await time.setProfile(request.body);
    return reply.type('application/json').send(JSON.stringify(profile));
  });
};
