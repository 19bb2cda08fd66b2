/**
 * Child process: a reference server that answers with the exact status, content type and body the
 * sensor returned for each endpoint, doing nothing else. `fastify` = a bare Fastify app (JSON body
 * parsing on, as Fastify does by default); `node-http` = node:http with the body read and discarded.
 * The gap between the sensor and these is what the sensor's own work costs.
 */
import { createServer } from 'node:http';
import Fastify from 'fastify';
import {
  type FromReference,
  LIVE_TIME_PREFIX,
  type RecordedResponse,
  TIME_PATH,
  type ToReference,
} from './reference-protocol.js';

const kind = process.argv[2];
const host = process.argv[3];

function headersOf(route: RecordedResponse): Record<string, string> {
  return route.contentType ? { 'content-type': route.contentType } : {};
}

/**
 * GET /api/v1/time as a plain Fastify route would make it: the recorded document as an object, its six
 * live clock readings (the sensor's timestamp and time options, the system's monotonic and realtime
 * clocks) read per request, serialized by Fastify's default JSON serializer.
 */
interface LiveTimeDocument {
  sensor: {
    timestamp: { time: number; time_options: { internal_osc: number; ptp_1588: number; sync_pulse_in: number } };
  };
  system: { monotonic: number; realtime: number };
}

function liveTimeHandler(recorded: Buffer) {
  const doc = JSON.parse(recorded.toString()) as LiveTimeDocument;
  return () => {
    const ns = process.hrtime.bigint();
    const sensorNs = Number(ns);
    const timestamp = doc.sensor.timestamp;
    timestamp.time = sensorNs;
    timestamp.time_options.internal_osc = sensorNs;
    timestamp.time_options.ptp_1588 = Number(ns + 37_000_000_000n);
    timestamp.time_options.sync_pulse_in = 0;
    doc.system.monotonic = performance.now() / 1000;
    doc.system.realtime = Date.now() / 1000;
    return doc;
  };
}

async function serveFastify(routes: RecordedResponse[]): Promise<number> {
  const app = Fastify({ logger: false });
  const time = routes.find((r) => r.method === 'GET' && r.path === TIME_PATH && r.status === 200);
  if (time) app.get(LIVE_TIME_PREFIX + TIME_PATH, liveTimeHandler(Buffer.from(time.bodyBase64, 'base64')));
  for (const route of routes) {
    const body = Buffer.from(route.bodyBase64, 'base64');
    app.route({
      method: route.method,
      url: route.path,
      handler: (_request, reply) => {
        reply.code(route.status).headers(headersOf(route));
        return reply.send(route.status === 204 ? undefined : body);
      },
    });
  }
  await app.listen({ host, port: 0 });
  const address = app.server.address();
  return typeof address === 'object' && address ? address.port : 0;
}

async function serveNodeHttp(routes: RecordedResponse[]): Promise<number> {
  const table = new Map(
    routes.map((r) => [`${r.method} ${r.path}`, { ...r, body: Buffer.from(r.bodyBase64, 'base64') }]),
  );
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    const route = table.get(`${request.method} ${path}`);
    request.resume();
    request.once('end', () => {
      if (!route) {
        response.writeHead(404).end();
        return;
      }
      response.writeHead(route.status, headersOf(route));
      response.end(route.status === 204 ? undefined : route.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const address = server.address();
  return typeof address === 'object' && address ? address.port : 0;
}

process.on('message', (raw: unknown) => {
  const message = raw as ToReference;
  if (message.type !== 'serve') return;
  const serve = kind === 'fastify' ? serveFastify : serveNodeHttp;
  serve(message.routes).then(
    (port) => process.send?.({ type: 'listening', port } satisfies FromReference),
    (error: unknown) => {
      process.stderr.write(`reference-server: ${String(error)}\n`);
      process.exit(1);
    },
  );
});

process.on('disconnect', () => process.exit(0));
