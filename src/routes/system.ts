/**
 * System: restart (`POST /api/v1/system/restart`, and the pre-3.1 `POST /api/v1/system/cmd/reboot`)
 * and firmware (`GET/POST /api/v1/system/firmware`). The upload is streamed to the firmware manager
 * (src/core/firmware) as it arrives; headers are checked before the interim 100 Continue is sent.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { Readable } from 'node:stream';
import { badRequest, unsupportedMediaType } from '../model/index.js';
import { Json, NoContent, problems } from './api-schemas.js';
import { afterResponse } from './http/after-response.js';
import { hasBody } from './http/http-limits.js';
import { deferContinue } from './http/expect-continue.js';
import type { TypeBoxApp } from './typebox-app.js';

const FIRMWARE_PATH = '/api/v1/system/firmware';
const OCTET_STREAM = 'application/octet-stream';

const FirmwareStatusSchema = Type.Object(
  {
    commit_pending: Type.Boolean({ description: 'The running image is on trial until the next successful start' }),
    fw: Type.String({ description: 'image_rev of the running image' }),
  },
  {
    additionalProperties: false,
    description: 'The running firmware',
    examples: [{ commit_pending: false, fw: 'ousteros-image-prod-bootes-v3.1.0+20240426041747' }],
  },
);
// A byte stream (contentMediaType): the route checks it as it arrives.
const FirmwareImageSchema = Type.Unsafe<unknown>({
  type: 'string',
  contentMediaType: OCTET_STREAM,
  description: 'A firmware image; Content-Type, Content-Length and the image are checked as they arrive',
});
const RESTART_RESPONSE = { 204: Json(NoContent, 'The unit restarts right after this answer'), ...problems() };

/** Content-Length as a number; undefined when absent (chunked upload). */
function contentLength(request: FastifyRequest): number | undefined {
  const header = request.headers['content-length'];
  if (header === undefined) return undefined;
  const length = Number(header);
  if (!Number.isSafeInteger(length) || length < 0)
    throw badRequest(`Content-Length ${JSON.stringify(header)} is not a byte count`);
  return length;
}

// A restart takes no body: one that carries a body (options the client thinks it is passing) is refused
// before it is read, so nothing restarts on a request the unit did not understand.
async function refuseBody(request: FastifyRequest) {
  if (!hasBody(request)) return;
  const length = request.headers['content-length'];
  const size =
    request.headers['transfer-encoding'] !== undefined || length === undefined
      ? 'a chunked body'
      : `a body of ${length} bytes`;
  throw badRequest(
    `${request.method} ${request.url.split('?')[0]} takes no request body; got ${size}; the unit did not restart`,
  );
}
const NO_BODY =
  'Takes no request body: a request with one (Content-Length > 0 or chunked) is refused with 400 naming it, and the unit does not restart.';
const tags = ['system'];

export const systemRoutes: FastifyPluginAsyncTypebox = async (app) => {
  restartRoutes(app);
  firmwareRoutes(app);
};

/** Restart, and its pre-3.1 name. */
function restartRoutes(app: TypeBoxApp) {
  const sensor = app.sensor;
  const restart = async (_request: FastifyRequest, reply: FastifyReply) => {
    sensor.power.announceRestart();
    afterResponse(reply, () => sensor.power.restart());
    return reply.code(204).send();
  };
  app.post(
    '/api/v1/system/restart',
    {
      onRequest: refuseBody,
      schema: {
        operationId: 'restart',
        summary: 'Restart the unit',
        description: NO_BODY,
        tags,
        response: RESTART_RESPONSE,
      },
    },
    restart,
  );
  app.post(
    '/api/v1/system/cmd/reboot',
    {
      onRequest: refuseBody,
      schema: {
        operationId: 'legacyReboot',
        summary: 'Restart the unit (before firmware 3.1)',
        description: NO_BODY,
        tags: ['legacy'],
        deprecated: true,
        response: RESTART_RESPONSE,
      },
    },
    restart,
  );
}

/**
 * The running firmware, and the upload of a new one. Its stream parser and its onSend hook go on the system
 * plugin's own instance: encapsulated there, they reach no route outside this file.
 */
function firmwareRoutes(app: TypeBoxApp) {
  const sensor = app.sensor;
  app.get(
    FIRMWARE_PATH,
    {
      schema: {
        operationId: 'getFirmware',
        summary: 'The running firmware',
        tags,
        response: { 200: FirmwareStatusSchema, ...problems() },
      },
    },
    async () => sensor.firmware.status,
  );
  const gate = deferContinue(app.server, (method, path) => method === 'POST' && path === FIRMWARE_PATH);
  // The image goes to the slot file as it arrives: hand the raw request stream to the handler.
  app.addContentTypeParser(OCTET_STREAM, (_request, payload, done) => done(null, payload));
  // A client still waiting for its 100 will not send the body: close instead of waiting to drain it.
  app.addHook('onSend', async (request, reply, payload) => {
    if (gate.awaitingContinue(request)) reply.header('connection', 'close');
    return payload;
  });

  app.post(FIRMWARE_PATH, {
    schema: {
      operationId: 'uploadFirmware',
      summary: 'Install a firmware image, then restart into it (send Expect: 100-continue)',
      tags,
      body: { content: { [OCTET_STREAM]: { schema: FirmwareImageSchema } } },
      response: { 204: Json(NoContent, 'Installed; the unit restarts into it'), ...problems(400, 409, 413, 415) },
    },
    // The parser streams, so Fastify never buffers the body; the writer enforces the same limit as it streams.
    bodyLimit: sensor.firmware.maxImageBytes,
    // Everything decidable from the headers is decided before the client sends the image.
    onRequest: async (request) => {
      const type = (request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
      if (type !== OCTET_STREAM)
        throw unsupportedMediaType(
          `a firmware image is uploaded with Content-Type: ${OCTET_STREAM}; got ${type ? JSON.stringify(type) : 'none'}`,
        );
      sensor.firmware.checkUpload(contentLength(request));
    },
    handler: async (request, reply) => {
      gate.sendContinue(request, reply);
      const body = request.body instanceof Readable ? request.body : Readable.from([]);
      await sensor.firmware.install(body, contentLength(request));
      sensor.power.announceRestart('firmware-update');
      afterResponse(reply, () => sensor.power.restart('firmware-update'));
      return reply.code(204).send();
    },
  });
}
