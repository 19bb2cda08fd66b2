/**
 * Prepared answers (src/routes/http/prepared-answers.ts): a plain GET of a hot document is answered
 * before Fastify routes it. Its wire bytes must be the route's own: the status line and every header
 * (the Date header's value masked), in order and case, and the body, compared on a real socket with the same request sent
 * so that Fastify answers it (an empty body's `Content-Length: 0`, an absolute-form target, a query
 * string that asks for the default). Each condition a hook of src/routes/http acts on must leave the
 * request to Fastify, the documents must follow every change, and /metrics must count both paths.
 */
import { connect, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/routes/app.js';
import { FaultPlane } from '../../src/faults/fault-plane.js';
import { FAST_TIMING } from '../../src/faults/index.js';
import type { PreparedAnswers } from '../../src/routes/http/prepared-answers.js';
import { createTestSensor, removeDir, type TestSensor } from '../helpers/test-sensor.js';
import { waitFor } from '../helpers/poll.js';
import { parseMetrics, sampleValue } from '../helpers/prometheus.js';
import { rawConnect } from '../helpers/raw-http.js';

const CONFIG = '/api/v1/sensor/config';
const METADATA = '/api/v1/sensor/metadata';
const ALERTS = '/api/v1/sensor/alerts';
const TIME = '/api/v1/time';
const HOT = [CONFIG, METADATA, `${METADATA}/sensor_info`, `${METADATA}/lidar_data_format`, ALERTS, TIME];

let unit: TestSensor;
let plane: FaultPlane;
let app: FastifyInstance;
let prepared: PreparedAnswers;
let port: number;
const logLines: string[] = [];
const logger = pino(
  { level: 'info' },
  new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  }),
);

beforeAll(async () => {
  unit = await createTestSensor({ product: 'OS-1-32', simulatedRebootMs: 1500 });
  plane = new FaultPlane(unit, { log: pino({ level: 'silent' }), timing: FAST_TIMING });
  app = await buildApp(unit.sensor, { faults: plane, logger });
  prepared = app.preparedAnswers as PreparedAnswers;
  const url = new URL(await app.listen({ host: '127.0.0.1', port: 0 }));
  port = Number(url.port);
});

afterAll(async () => {
  plane.close();
  await app.close();
  await unit.close();
  removeDir(unit.dataDir);
});

interface Wire {
  /** Status line and headers as sent, the Date header's value masked. */
  head: string;
  body: Buffer;
  /** Whether the prepared path answered it. */
  prepared: boolean;
}

/** One request on a fresh connection; the response read whole by its Content-Length. */
async function exchange(request: string): Promise<Wire> {
  const before = prepared.answered;
  const connection = await rawConnect(port);
  try {
    connection.write(request);
    const response = await connection.response();
    if (!response) throw new Error(`the connection closed without an answer to ${JSON.stringify(request)}`);
    return {
      // The date's value differs from one second to the next; its name and place must not.
      head: response.head.replace(/\r\ndate: [^\r]*/i, '\r\ndate: D'),
      body: Buffer.from(response.body),
      prepared: prepared.answered > before,
    };
  } finally {
    connection.destroy();
  }
}

const plain = (path: string) => exchange(`GET ${path} HTTP/1.1\r\nHost: sensor\r\n\r\n`);
/** The same request, which the prepared path leaves to Fastify (a body header, even of an empty body). */
const viaFastify = (path: string) => exchange(`GET ${path} HTTP/1.1\r\nHost: sensor\r\nContent-Length: 0\r\n\r\n`);
const absoluteForm = (path: string) => exchange(`GET http://sensor${path} HTTP/1.1\r\nHost: sensor\r\n\r\n`);

/** GET /api/v1/time carries six live clock readings: those numbers (and so the length) differ per answer. */
function masked(path: string, wire: Wire): { head: string; body: string } {
  if (path !== TIME) return { head: wire.head, body: wire.body.toString('latin1') };
  expect(wire.head).toMatch(new RegExp(`\\r\\ncontent-length: ${wire.body.length}(\\r\\n|$)`));
  return {
    head: wire.head.replace(/(\r\ncontent-length: )\d+/, '$1N'),
    body: wire.body
      .toString('latin1')
      .replace(/"(time|internal_osc|ptp_1588|sync_pulse_in|monotonic|realtime)":-?[0-9][0-9.e+-]*/g, '"$1":N'),
  };
}

/** A plain request answered by the prepared path (GET /time: once its readings are fresh again). */
async function preparedAnswer(path: string): Promise<Wire> {
  return waitFor(async () => {
    const wire = await plain(path);
    return wire.prepared && wire;
  });
}

async function expectSameAnswer(path: string, fastify: (path: string) => Promise<Wire>): Promise<void> {
  const fast = await preparedAnswer(path);
  const slow = await fastify(path);
  expect(slow.prepared).toBe(false);
  expect(fast.head).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
  expect(masked(path, fast)).toEqual(masked(path, slow));
}

async function requestsCounted(path: string): Promise<number> {
  const text = (await app.inject({ method: 'GET', url: '/metrics' })).body;
  const count = sampleValue(parseMetrics(text), 'lidar_sensor_http_requests_total', {
    method: 'GET',
    route: path,
    status_code: '200',
  });
  return Number.isNaN(count) ? 0 : count;
}

describe('prepared answers', () => {
  it('are declared by GET routes of the app', () => {
    expect(prepared.paths()).toEqual(expect.arrayContaining(HOT));
    for (const path of prepared.paths()) expect(app.hasRoute({ method: 'GET', url: path }), path).toBe(true);
  });

  it('answer each hot document with the bytes Fastify sends for it', async () => {
    for (const path of HOT) {
      await expectSameAnswer(path, viaFastify);
      await expectSameAnswer(path, absoluteForm);
    }
    // Defaults asked for in a query string: Fastify routes them, and the answer is the same.
    await expectSameAnswer(CONFIG, (p) => plain(`${p}?staging=false`));
    await expectSameAnswer(ALERTS, (p) => plain(`${p}?mode=default`));
  });

  it('keep the connection open as Fastify does, and answer HTTP/1.0 the same way', async () => {
    const fast = await exchange(`GET ${CONFIG} HTTP/1.0\r\n\r\n`);
    const slow = await exchange(`GET ${CONFIG} HTTP/1.0\r\nContent-Length: 0\r\n\r\n`);
    expect([fast.prepared, slow.prepared]).toEqual([true, false]);
    expect(fast).toEqual({ ...slow, prepared: true });
    const closing = `GET ${CONFIG} HTTP/1.1\r\nHost: sensor\r\nConnection: close\r\n`;
    const fastClose = await exchange(`${closing}\r\n`);
    const slowClose = await exchange(`${closing}Content-Length: 0\r\n\r\n`);
    expect(fastClose.head).toMatch(/\r\nConnection: close(\r\n|$)/);
    expect(fastClose).toEqual({ ...slowClose, prepared: true });
  });

  it('answer pipelined requests in order, between answers from Fastify', async () => {
    const plainRequest = (path: string) => `GET ${path} HTTP/1.1\r\nHost: sensor\r\n\r\n`;
    const fastifyRequest = (path: string) => `GET ${path} HTTP/1.1\r\nHost: sensor\r\nContent-Length: 0\r\n\r\n`;
    const sequence = [plainRequest(CONFIG), fastifyRequest(METADATA), plainRequest(ALERTS), fastifyRequest(CONFIG)];
    const before = prepared.answered;
    const connection = await rawConnect(port);
    const bodies: string[] = [];
    try {
      connection.write(sequence.join(''));
      for (const _ of sequence) bodies.push((await connection.response())?.body ?? '');
    } finally {
      connection.destroy();
    }
    expect(prepared.answered - before).toBe(2);
    const expected = [CONFIG, METADATA, ALERTS, CONFIG].map(async (path) => (await viaFastify(path)).body.toString());
    expect(bodies).toEqual(await Promise.all(expected));
  });

  it('follow every change of the configuration and the alert log', async () => {
    const before = (await preparedAnswer(CONFIG)).body.toString();
    const changed = await app.inject({
      method: 'POST',
      url: CONFIG,
      headers: { 'content-type': 'application/json' },
      payload: { signal_multiplier: 0.5 },
    });
    expect(changed.statusCode).toBe(204);
    const after = await preparedAnswer(CONFIG);
    expect(after.body.toString()).not.toBe(before);
    expect(JSON.parse(after.body.toString())).toEqual(unit.sensor.configs.reported('active'));
    await expectSameAnswer(CONFIG, viaFastify);

    const alertsBefore = JSON.parse((await preparedAnswer(ALERTS)).body.toString()) as { next_cursor: number };
    unit.sensor.alerts.raise('0x01000011', { speed: 100, duplex: 'full' });
    const alertsAfter = JSON.parse((await preparedAnswer(ALERTS)).body.toString()) as {
      next_cursor: number;
      active: { id: string }[];
    };
    expect(alertsAfter.next_cursor).toBe(alertsBefore.next_cursor + 1);
    expect(alertsAfter.active.map((a) => a.id)).toContain('0x01000011');
    await expectSameAnswer(ALERTS, viaFastify);
    await expectSameAnswer(METADATA, viaFastify);
  });

  it('leave a request with a fault rule active to Fastify', async () => {
    const { id } = plane.add({
      selector: { plane: 'http', path: CONFIG, method: 'GET' },
      action: { type: 'status', status: 503, retry_after_s: 3 },
    });
    const faulted = await plain(CONFIG);
    expect(faulted.prepared).toBe(false);
    expect(faulted.head).toMatch(/^HTTP\/1\.1 503 /);
    // Any HTTP rule, even on another route: the fault hook decides, not the prepared path.
    const other = await plain(METADATA);
    expect(other.prepared).toBe(false);
    expect(other.head).toMatch(/^HTTP\/1\.1 200 /);
    plane.remove(id);
    expect((await plain(CONFIG)).prepared).toBe(true);
  });

  it('leave requests to Fastify while the request log writes every request', async () => {
    logger.level = 'debug';
    try {
      const wire = await plain(CONFIG);
      expect(wire.prepared).toBe(false);
      await waitFor(() =>
        logLines.some((line) => {
          const entry = JSON.parse(line) as { msg?: string; url?: string };
          return entry.msg === 'request' && entry.url === CONFIG;
        }),
      );
    } finally {
      logger.level = 'info';
    }
    expect((await plain(CONFIG)).prepared).toBe(true);
  });

  it('leave requests to Fastify while the unit restarts (503)', async () => {
    const restarting = unit.sensor.power.restart();
    try {
      await waitFor(() => unit.sensor.power.rebooting);
      const wire = await plain(CONFIG);
      expect(wire.prepared).toBe(false);
      expect(wire.head).toMatch(/^HTTP\/1\.1 503 /);
    } finally {
      await restarting;
    }
    expect((await preparedAnswer(CONFIG)).prepared).toBe(true);
  });

  it('leave the first request of a connection refused a slot to Fastify (503, Connection: close)', async () => {
    const capped = await buildApp(unit.sensor, { httpLimits: { maxConnectionsPerAddress: 1 } });
    const cappedPort = Number(new URL(await capped.listen({ host: '127.0.0.1', port: 0 })).port);
    const cappedPrepared = capped.preparedAnswers as PreparedAnswers;
    const sockets: Socket[] = [];
    try {
      // A live-view stream: a request in progress for as long as it is watched, so its slot is busy.
      const stream = connect({ port: cappedPort, host: '127.0.0.1' });
      sockets.push(stream);
      let streamed = '';
      stream.on('data', (chunk: Buffer) => {
        streamed += chunk.toString('latin1');
      });
      stream.write('GET /web/api/live-image HTTP/1.1\r\nHost: sensor\r\n\r\n');
      await waitFor(() => streamed.includes('text/event-stream'));
      const refused = connect({ port: cappedPort, host: '127.0.0.1' });
      sockets.push(refused);
      let answer = '';
      refused.on('data', (chunk: Buffer) => {
        answer += chunk.toString('latin1');
      });
      refused.write(`GET ${CONFIG} HTTP/1.1\r\nHost: sensor\r\n\r\n`);
      await waitFor(() => answer.includes('\r\n\r\n'));
      expect(answer).toMatch(/^HTTP\/1\.1 503 /);
      expect(answer).toMatch(/\r\nconnection: close\r\n/i);
      expect(cappedPrepared.answered).toBe(0);
    } finally {
      for (const socket of sockets) socket.destroy();
      await capped.close();
    }
  });

  it('are counted in /metrics like the requests Fastify answers', async () => {
    for (const path of [CONFIG, METADATA, ALERTS, TIME]) {
      const before = await requestsCounted(path);
      await preparedAnswer(path);
      await preparedAnswer(path);
      await viaFastify(path);
      // GET /time may have needed more than one try for a prepared answer: at least three, each counted.
      const after = await requestsCounted(path);
      if (path === TIME) expect(after - before).toBeGreaterThanOrEqual(3);
      else expect(after - before).toBe(3);
    }
  });

  it('never answer other targets', async () => {
    for (const [target, status] of [
      [`${CONFIG}?`, 200],
      [`${CONFIG}/`, 404],
      [`${METADATA}?x=1`, 400],
      ['/api/v1/sensor/CONFIG', 404],
    ] as const) {
      const wire = await plain(target);
      expect(wire.prepared, target).toBe(false);
      expect(wire.head, target).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    }
  });
});
