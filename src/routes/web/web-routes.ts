/**
 * The unit's web page: `GET /` and its static files under `/web/`, plus what the page needs beyond the
 * sensor API: the parameter registry (to generate the configuration form), telemetry history and the
 * live range/reflectivity stream (Server-Sent Events). Everything else the page does goes through the
 * same /api/v1 routes as any client.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { PARAMETERS } from '../../config/index.js';
import { notFound } from '../../model/index.js';
import { sendCachedJson } from '../http/cached-json.js';
import { withOfferedEnums } from '../schemas/offered-enums.js';
import { sendProblem } from '../http/problem.js';
import type { SensorServices } from '../../core/index.js';
import { LiveImageHub } from './live-image.js';
import { TelemetryHistory } from './telemetry-history.js';
import { loadWebAssets, type WebAsset } from './web-assets.js';

/**
 * The registry as plain JSON: name, JSON schema, default, read-only flag and description per parameter, without
 * those the unit's firmware does not have (`absent`) and without the values it does not have (`absentValues`).
 */
export function registryDocument(
  absent: ReadonlySet<string> = new Set(),
  absentValues: ReadonlyMap<string, readonly unknown[]> = new Map(),
) {
  return withOfferedEnums(
    {
      parameters: PARAMETERS.filter((p) => !absent.has(p.name)).map((p) => ({
        name: p.name,
        schema: JSON.parse(JSON.stringify(p.schema)) as unknown,
        default: p.default,
        readOnly: p.readOnly ?? false,
        description: p.description,
      })),
    },
    { absentValues },
  );
}

function sendAsset(request: FastifyRequest, reply: FastifyReply, asset: WebAsset) {
  reply.header('etag', asset.etag).header('cache-control', 'no-cache');
  if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
  return reply.type(asset.type).send(asset.body);
}

export const webRoutes: FastifyPluginAsync<{ sensor: SensorServices }> = async (app, { sensor }) => {
  // Read on the first request for the page: a unit nobody looks at neither reads nor hashes its files.
  let loaded: { assets: Map<string, WebAsset> } | undefined;
  const page = () => (loaded ??= { assets: loadWebAssets() });
  // Made again when the unit's parameters change (a firmware update to 3.2 adds Zone Monitor's and new values).
  let registry: { absent: ReadonlySet<string>; document: ReturnType<typeof registryDocument> } | undefined;
  const registryNow = () => {
    const absent = sensor.offer.absentParameters;
    if (registry?.absent !== absent)
      registry = { absent, document: registryDocument(absent, sensor.offer.absentValues) };
    return registry.document;
  };
  const live = new LiveImageHub(sensor.preview);
  // Sampling starts with the first page load: a unit nobody looks at pays nothing.
  const history = new TelemetryHistory(() => sensor.telemetry.read());
  // preClose: an open event stream would otherwise hold the server's close (and the unit's shutdown) forever.
  app.addHook('preClose', (done) => {
    history.stop();
    live.close();
    done();
  });

  // The page is not part of the sensor's API: its routes stay out of the OpenAPI document.
  const hidden = { schema: { hide: true } };
  app.get('/', hidden, (request, reply) => {
    const index = page().assets.get('index.html');
    if (!index) return sendProblem(reply, notFound("the web page's files are not installed (web/ beside dist/)"));
    history.start();
    return sendAsset(request, reply, index);
  });
  app.get<{ Params: { file: string } }>('/web/:file', hidden, (request, reply) => {
    const asset = page().assets.get(request.params.file);
    if (!asset) return sendProblem(reply, notFound(`no file ${JSON.stringify(request.params.file)} in the web page`));
    return sendAsset(request, reply, asset);
  });
  app.get('/web/api/registry', hidden, (_request, reply) => sendCachedJson(reply, registryNow()));
  // Zone Monitor's zones with their live state (a 3.2 unit), null without an active set; 404 where the firmware
  // has no Zone Monitor (the page then shows no card for it).
  app.get('/web/api/zones', hidden, (_request, reply) =>
    sensor.offer.zoneMonitor
      ? sensor.zones.summary()
      : sendProblem(reply, notFound("this unit's firmware has no Zone Monitor (firmware 3.2 has)")),
  );
  app.get('/web/api/telemetry-history', hidden, () => ({ interval_ms: 5000, samples: history.list() }));
  // Where the unit's UDP to this page's computer leaves from: the page compares it with the address it talks to.
  app.get('/web/api/udp-source', hidden, async (request) => {
    const client = request.socket.remoteAddress?.replace(/^::ffff:/, '') ?? '';
    return { client, source: client ? await sensor.run.dataSourceTowards(client) : null };
  });
  app.get('/web/api/live-image', hidden, (request, reply) => {
    reply.hijack();
    live.add(reply.raw);
    request.raw.once('close', () => reply.raw.end());
  });
};
