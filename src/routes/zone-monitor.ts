/**
 * Zone Monitor of firmware 3.2 (docs/zone-monitor.md, docs/http-api.md): the staged and the active zone set
 * zip, apply, and the live zone ids, as the vendor SDK's SensorHttp calls them (zips as
 * application/octet-stream both ways, live ids as a JSON array). While the unit runs firmware older than 3.2
 * they answer 404 as an unknown path does, as a 3.1 unit does; an update to 3.2 brings them.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { MAX_LIVE_ZONES, MAX_ZONE_ID, notFound, unsupportedMediaType } from '../model/index.js';
import { Json, NoContent, problems } from './api-schemas.js';
import type { TypeBoxApp } from './typebox-app.js';

const PREFIX = '/api/v1/zone_monitor';
const OCTET_STREAM = 'application/octet-stream';
/** Accepted on upload besides the SDK's octet-stream. */
const ZIP = 'application/zip';
/** Far above any zone set (a full ZRB set deflates to a few MB), far below what would strain the unit. */
const MAX_ZIP_BYTES = 32 * 1024 * 1024;

// A byte stream (contentMediaType): the route reads and checks the zip itself.
const ZipBody = Type.Unsafe<unknown>({
  type: 'string',
  contentMediaType: 'application/zip',
  description: 'A zone set zip as the SDK writes it (ZoneSet.to_zip_blob): metadata.json and one STL or ZRB per zone',
});
const ZipAnswer = {
  description: 'The zone set zip, byte for byte as it was uploaded',
  content: { [OCTET_STREAM]: { schema: { type: 'string', contentMediaType: 'application/zip' } } },
};
const LiveIds = Type.Array(Type.Integer({ minimum: 0, maximum: MAX_ZONE_ID }), {
  maxItems: MAX_LIVE_ZONES,
  uniqueItems: true,
  description: `Ids of the zones monitored now (0..${MAX_ZONE_ID}), at most ${MAX_LIVE_ZONES}; an id that names no zone of the active set is live and reports error flag 1`,
  examples: [[0, 1]],
});

const tags = ['zone_monitor'];

function sendZip(zip: Uint8Array | undefined, what: string) {
  if (!zip) throw notFound(`no zone set is ${what}`);
  return Buffer.from(zip.buffer, zip.byteOffset, zip.byteLength);
}

export const zoneMonitorRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const sensor = app.sensor;
  // Encapsulated: only this plugin's routes, which the helpers below register on this same instance.
  app.addHook('onRequest', (request, _reply, done) => {
    if (sensor.offer.zoneMonitor) done();
    else done(notFound(`no endpoint at ${request.url.split('?')[0]}`));
  });
  app.addContentTypeParser([OCTET_STREAM, ZIP], { parseAs: 'buffer', bodyLimit: MAX_ZIP_BYTES }, (_r, body, done) =>
    done(null, body),
  );
  stagedZoneSetRoutes(app);
  activeZoneSetRoutes(app);
  liveZoneIdRoutes(app);
};

/** The staged zone set: read, upload (checked before it is kept) and remove. */
function stagedZoneSetRoutes(app: TypeBoxApp) {
  const zones = app.sensor.zones;
  app.get(
    `${PREFIX}/staged/zip`,
    {
      schema: {
        operationId: 'getStagedZoneSet',
        summary: 'The staged zone set zip',
        tags,
        response: { 200: ZipAnswer, ...problems(404) },
      },
    },
    async (_request, reply) => reply.type(OCTET_STREAM).send(sendZip(zones.stagedZip(), 'staged')),
  );

  app.post(
    `${PREFIX}/staged/zip`,
    {
      schema: {
        operationId: 'stageZoneSet',
        summary: 'Stage a zone set zip (checked against every rule and this unit’s beams first)',
        tags,
        body: { content: { [OCTET_STREAM]: { schema: ZipBody }, [ZIP]: { schema: ZipBody } } },
        response: { 204: Json(NoContent, 'Staged; POST apply makes it active'), ...problems(400, 413, 415) },
      },
      bodyLimit: MAX_ZIP_BYTES,
    },
    async (request, reply) => {
      if (!Buffer.isBuffer(request.body))
        throw unsupportedMediaType(`a zone set is uploaded as ${OCTET_STREAM} (or ${ZIP})`);
      await zones.stage(request.body);
      return reply.code(204).send();
    },
  );

  const unstage = {
    schema: {
      operationId: 'deleteStagedZoneSet',
      summary: 'Remove the staged zone set',
      tags,
      response: { 204: Json(NoContent, 'No zone set is staged now'), ...problems() },
    },
  };
  app.delete(`${PREFIX}/staged/zip`, unstage, async (_request, reply) => {
    await zones.unstage();
    return reply.code(204).send();
  });
  // The SDK's delete_zone_monitor_staged_config names the resource without /zip.
  app.delete(
    `${PREFIX}/staged`,
    { schema: { ...unstage.schema, operationId: 'deleteStagedZoneSetSdk', summary: 'The same, as the SDK calls it' } },
    async (_request, reply) => {
      await zones.unstage();
      return reply.code(204).send();
    },
  );
}

/** The active zone set: read, and make the staged one active. */
function activeZoneSetRoutes(app: TypeBoxApp) {
  const zones = app.sensor.zones;
  app.get(
    `${PREFIX}/active/zip`,
    {
      schema: {
        operationId: 'getActiveZoneSet',
        summary: 'The active zone set zip (404 when none was applied)',
        tags,
        response: { 200: ZipAnswer, ...problems(404) },
      },
    },
    async (_request, reply) => reply.type(OCTET_STREAM).send(sendZip(zones.activeZip(), 'active')),
  );

  app.post(
    `${PREFIX}/apply`,
    {
      schema: {
        operationId: 'applyZoneSet',
        summary: 'Make the staged zone set active (its power_on_live_ids become live)',
        tags,
        response: { 204: Json(NoContent, 'Active; watched from the next frame'), ...problems(400, 409) },
      },
    },
    async (_request, reply) => {
      await zones.apply();
      return reply.code(204).send();
    },
  );
}

/** The ids of the zones watched now. */
function liveZoneIdRoutes(app: TypeBoxApp) {
  const zones = app.sensor.zones;
  app.get(
    `${PREFIX}/live_ids`,
    {
      schema: {
        operationId: 'getLiveZoneIds',
        summary: 'The ids of the live zones',
        tags,
        response: { 200: Json(LiveIds, 'Live zone ids', [0, 1]), ...problems() },
      },
    },
    async () => [...zones.liveIds],
  );

  app.post(
    `${PREFIX}/live_ids`,
    {
      schema: {
        operationId: 'setLiveZoneIds',
        summary: 'Set the live zones (ids of the active zone set)',
        tags,
        body: LiveIds,
        response: { 204: Json(NoContent, 'Watched from the next frame'), ...problems(400, 409) },
      },
    },
    async (request, reply) => {
      await zones.setLiveIds(request.body);
      return reply.code(204).send();
    },
  );
}
