/**
 * System: restart (`POST /api/v1/system/restart`, and the pre-3.1 `POST /api/v1/system/cmd/reboot`)
 * and firmware (`GET/POST /api/v1/system/firmware`). The upload is streamed to the firmware manager
 * (src/firmware) as it arrives; headers are checked before the interim 100 Continue is sent.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { badRequest, unsupportedMediaType } from '../errors.js';
import type { Sensor } from '../sensor/sensor.js';
import { afterResponse } from './after-response.js';
import { deferContinue } from './expect-continue.js';

const FIRMWARE_PATH = '/api/v1/system/firmware';
const OCTET_STREAM = 'application/octet-stream';

const firmwareStatusSchema = {
  type: 'object',
  properties: { commit_pending: { type: 'boolean' }, fw: { type: 'string' } },
  required: ['commit_pending', 'fw'],
  additionalProperties: false,
} as const;

/** Content-Length as a number; undefined when absent (chunked upload). */
function contentLength(request: FastifyRequest): number | undefined {
  const header = request.headers['content-length'];
  if (header === undefined) return undefined;
  const length = Number(header);
  if (!Number.isSafeInteger(length) || length < 0) throw badRequest(`Content-Length ${JSON.stringify(header)} is not a byte count`);
  return length;
}

export const systemRoutes: FastifyPluginAsync<{ sensor: Sensor }> = async (app, { sensor }) => {
  const restart = async (_request: FastifyRequest, reply: FastifyReply) => {
    afterResponse(reply, () => sensor.restart());
    return reply.code(204).send();
  };
  app.post('/api/v1/system/restart', restart);
  app.post('/api/v1/system/cmd/reboot', restart);

  app.get(FIRMWARE_PATH, { schema: { response: { 200: firmwareStatusSchema } } }, async () => sensor.firmware.status);

  const gate = deferContinue(app.server, (method, path) => method === 'POST' && path === FIRMWARE_PATH);
  // The image goes to the slot file as it arrives: hand the raw request stream to the handler.
  app.addContentTypeParser(OCTET_STREAM, (_request, payload, done) => done(null, payload));
  // A client still waiting for its 100 will not send the body: close instead of waiting to drain it.
  app.addHook('onSend', async (request, reply, payload) => {
    if (gate.awaitingContinue(request)) reply.header('connection', 'close');
    return payload;
  });

  app.post(FIRMWARE_PATH, {
    // The parser streams, so Fastify never buffers the body; the writer enforces the same limit as it streams.
    bodyLimit: sensor.firmware.maxImageBytes,
    // Everything decidable from the headers is decided before the client sends the image.
    onRequest: async (request) => {
      const type = (request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
      if (type !== OCTET_STREAM) throw unsupportedMediaType(`a firmware image is uploaded with Content-Type: ${OCTET_STREAM}; got ${type ? JSON.stringify(type) : 'none'}`);
      sensor.firmware.checkUpload(contentLength(request));
    },
    handler: async (request, reply) => {
      gate.sendContinue(request, reply);
      const body = request.body instanceof Readable ? request.body : Readable.from([]);
      await sensor.firmware.install(body, contentLength(request));
      afterResponse(reply, () => sensor.restart('firmware-update'));
      return reply.code(204).send();
    },
  });
};
