/**
 * (1) HTTP: requests/s and latency of the sensor's endpoints, each beside a bare Fastify server and a
 * bare node:http server answering the same bytes, measured in the same run with the same generator.
 */
import type { ChildProcess } from 'node:child_process';
import type { BenchContext } from './context.js';
import { LoadGenerator } from './load-client.js';
import type { LoadOptions, LoadResult } from './load-protocol.js';
import { forkTs, nextMessage, stopProcess } from './processes.js';
import { CpuMeter } from './proc-stats.js';
import {
  type FromReference,
  LIVE_TIME_PREFIX,
  type RecordedResponse,
  type ReferenceKind,
  TIME_PATH,
  type ToReference,
} from './reference-protocol.js';
import { figureWithReferences, fmt, mergeSections, unavailable, type Figure, type Section } from './report.js';
import { spawnSensor } from './sensor-process.js';
import { median } from './stats.js';

interface Endpoint {
  method: 'GET' | 'PUT';
  path: string;
  /** PUT body; `[<id>]` becomes a fresh id per request, so each write really changes the stored value. */
  body?: string;
  target: 'throughput' | 'write-latency';
}

const JSON_HEADERS = { 'content-type': 'application/json' };

export const HTTP_ENDPOINTS: readonly Endpoint[] = [
  { method: 'GET', path: '/api/v1/sensor/config', target: 'throughput' },
  { method: 'GET', path: '/api/v1/sensor/metadata', target: 'throughput' },
  { method: 'GET', path: '/api/v1/time', target: 'throughput' },
  { method: 'GET', path: '/api/v1/sensor/alerts', target: 'throughput' },
  { method: 'PUT', path: '/api/v1/user/data', body: '"bench [<id>]"', target: 'write-latency' },
];

/** Typical client concurrency of a busy sensor (a fleet tool polling, a viewer, a recorder). */
const CONNECTIONS = 10;
const HOST = '127.0.0.1';
export const GET_THROUGHPUT_TARGET = 0.9;
/** The targets (docs/benchmarks.md, Targets): GETs near bare Fastify; 10 durable writers p99 <= 2 ms. */
export const WRITE_P99_TARGET_MS = 2;
/** A durable write's CPU, and GET /time against a Fastify route composing the same live document. */
export const WRITE_CPU_TARGET_US = 100;
export const LIVE_TIME_TARGET = 1.0;

/** Asks the sensor once and keeps the exact answer, for the references to replay. */
async function record(baseUrl: string, endpoint: Endpoint): Promise<RecordedResponse> {
  const response = await fetch(baseUrl + endpoint.path, {
    method: endpoint.method,
    ...(endpoint.body !== undefined
      ? { body: endpoint.body.replace('[<id>]', 'recording'), headers: JSON_HEADERS }
      : {}),
  });
  return {
    method: endpoint.method,
    path: endpoint.path,
    status: response.status,
    contentType: response.headers.get('content-type') ?? undefined,
    bodyBase64: Buffer.from(await response.arrayBuffer()).toString('base64'),
  };
}

async function startReference(
  kind: ReferenceKind,
  routes: RecordedResponse[],
): Promise<{ child: ChildProcess; url: string }> {
  const child = forkTs(new URL('./reference-server.ts', import.meta.url), [kind, HOST]);
  const listening = nextMessage(
    child,
    (m: unknown): m is FromReference => (m as FromReference | undefined)?.type === 'listening',
    15_000,
    `the ${kind} reference`,
  );
  child.send({ type: 'serve', routes } satisfies ToReference);
  return { child, url: `http://${HOST}:${(await listening).port}` };
}

/** A load run plus the server's own CPU time per answered request (what the throughput gap is made of). */
interface Measurement extends LoadResult {
  cpuMicrosPerRequest: number;
}

interface Measured {
  sensor: Measurement;
  fastify: Measurement;
  nodeHttp: Measurement;
  /** GET /api/v1/time only: bare Fastify composing the live document per request. */
  fastifyLive?: Measurement;
}

function endpointSection(endpoint: Endpoint, m: Measured): Section {
  const label = `HTTP ${endpoint.method} ${endpoint.path}`;
  const isWrite = endpoint.target === 'write-latency';
  const live = m.fastifyLive;
  // GET /time is held to the Fastify route that composes the same live document; the other GETs to
  // Fastify replaying their bytes.
  const throughputReference = live ?? m.fastify;
  const throughputTarget = live ? LIVE_TIME_TARGET : GET_THROUGHPUT_TARGET;
  const throughputMet = isWrite
    ? undefined
    : m.sensor.requestsPerSecond / throughputReference.requestsPerSecond >= throughputTarget;
  const writeMet = isWrite
    ? m.sensor.latencyMs.p99 <= WRITE_P99_TARGET_MS && m.sensor.cpuMicrosPerRequest <= WRITE_CPU_TARGET_US
    : undefined;
  const refs = (pick: (r: Measurement) => number) => [
    ...(live ? [{ name: 'bare Fastify composing the live document', value: pick(live) }] : []),
    { name: 'bare Fastify', value: pick(m.fastify) },
    { name: 'bare node:http', value: pick(m.nodeHttp) },
  ];
  const throughputTargetText = live
    ? `>= ${LIVE_TIME_TARGET} x bare Fastify composing the live document`
    : `>= ${GET_THROUGHPUT_TARGET} x bare Fastify`;
  const errors = m.sensor.non2xx + m.sensor.errors + m.sensor.timeouts;
  const note = errors
    ? { note: `${m.sensor.non2xx} non-2xx, ${m.sensor.errors} errors, ${m.sensor.timeouts} timeouts` }
    : {};
  const figures: Figure[] = [
    figureWithReferences(
      {
        name: `${label} requests/s`,
        value: m.sensor.requestsPerSecond,
        unit: 'req/s',
        ...(isWrite ? {} : { target: throughputTargetText, met: throughputMet }),
        ...note,
      },
      refs((r) => r.requestsPerSecond),
    ),
    figureWithReferences(
      { name: `${label} latency p50`, value: m.sensor.latencyMs.p50, unit: 'ms' },
      refs((r) => r.latencyMs.p50),
    ),
    figureWithReferences(
      {
        name: `${label} latency p99`,
        value: m.sensor.latencyMs.p99,
        unit: 'ms',
        ...(isWrite ? { target: `<= ${WRITE_P99_TARGET_MS} ms`, met: writeMet } : {}),
      },
      refs((r) => r.latencyMs.p99),
    ),
    figureWithReferences(
      {
        name: `${label} server CPU per request`,
        value: m.sensor.cpuMicrosPerRequest,
        unit: 'µs',
        ...(isWrite
          ? { target: `<= ${WRITE_CPU_TARGET_US} µs`, met: m.sensor.cpuMicrosPerRequest <= WRITE_CPU_TARGET_US }
          : {}),
      },
      refs((r) => r.cpuMicrosPerRequest),
    ),
  ];
  const summary = (r: Measurement) =>
    `${fmt(r.requestsPerSecond, 0)} req/s, p50 ${fmt(r.latencyMs.p50)} / p99 ${fmt(r.latencyMs.p99)} ms, ${fmt(r.cpuMicrosPerRequest, 0)} µs CPU/req`;
  const ratio = (pick: (r: Measurement) => number) =>
    `${live ? `${fmt(pick(m.sensor) / pick(live))} / ` : ''}${fmt(pick(m.sensor) / pick(m.fastify))} / ${fmt(pick(m.sensor) / pick(m.nodeHttp))}`;
  return {
    figures,
    rows: [
      {
        figure: `${label}${isWrite ? ` (persisted write, ${CONNECTIONS} connections)` : ''}`,
        value: summary(m.sensor) + (errors ? ` (${note.note})` : ''),
        reference: `${live ? `Fastify composing the live document: ${summary(live)}; ` : ''}Fastify: ${summary(m.fastify)}; node:http: ${summary(m.nodeHttp)}`,
        ratio: `req/s ${ratio((r) => r.requestsPerSecond)}; p99 ${ratio((r) => r.latencyMs.p99)}`,
        target: isWrite
          ? `p99 <= ${WRITE_P99_TARGET_MS} ms, <= ${WRITE_CPU_TARGET_US} µs CPU/req`
          : `req/s ${throughputTargetText}`,
        met: (throughputMet ?? writeMet) ? 'yes' : 'NO',
      },
    ],
  };
}

/** Each figure the median of its rounds (counts summed): one disturbed round does not decide it. */
function medianOfRounds(results: Measurement[]): Measurement {
  const mid = (pick: (r: Measurement) => number) => median(results.map(pick));
  const sum = (pick: (r: Measurement) => number) => results.reduce((total, r) => total + pick(r), 0);
  return {
    requests: sum((r) => r.requests),
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors),
    timeouts: sum((r) => r.timeouts),
    durationS: sum((r) => r.durationS),
    requestsPerSecond: mid((r) => r.requestsPerSecond),
    cpuMicrosPerRequest: mid((r) => r.cpuMicrosPerRequest),
    latencyMs: {
      count: sum((r) => r.latencyMs.count),
      p50: mid((r) => r.latencyMs.p50),
      p95: mid((r) => r.latencyMs.p95),
      p99: mid((r) => r.latencyMs.p99),
      max: Math.max(...results.map((r) => r.latencyMs.max)),
    },
  };
}

/** Writers beside the 10 of the main figure: one alone (the cost of one commit) and 50 (queueing). */
const OTHER_WRITER_COUNTS = [1, 50];

function writersSection(label: string, connections: number, r: Measurement): Section {
  const each = `${connections} connection${connections === 1 ? '' : 's'}`;
  return {
    figures: [
      { name: `${label} requests/s, ${each}`, value: r.requestsPerSecond, unit: 'req/s' },
      { name: `${label} latency p50, ${each}`, value: r.latencyMs.p50, unit: 'ms' },
      {
        name: `${label} latency p99, ${each}`,
        value: r.latencyMs.p99,
        unit: 'ms',
      },
      { name: `${label} server CPU per request, ${each}`, value: r.cpuMicrosPerRequest, unit: 'µs' },
    ],
    rows: [
      {
        figure: `${label} (persisted write, ${each})`,
        value: `${fmt(r.requestsPerSecond, 0)} req/s, p50 ${fmt(r.latencyMs.p50)} / p99 ${fmt(r.latencyMs.p99)} ms, ${fmt(r.cpuMicrosPerRequest, 0)} µs CPU/req`,
        reference: '',
        ratio: '',
        target: '',
        met: '',
      },
    ],
  };
}

export async function benchHttp(ctx: BenchContext): Promise<Section> {
  const warmS = ctx.quick ? 0.25 : 0.5;
  const measureS = ctx.quick ? 0.5 : 1.5;
  const rounds = ctx.quick ? 1 : 3;
  const sensor = await spawnSensor({ host: HOST, dataDir: ctx.dataDir('http') });
  const children: ChildProcess[] = [];
  const generator = LoadGenerator.start();
  try {
    const recorded = new Map<Endpoint, RecordedResponse>();
    for (const endpoint of HTTP_ENDPOINTS) recorded.set(endpoint, await record(sensor.baseUrl, endpoint));
    const served = [...recorded.values()].filter((r) => r.status >= 200 && r.status < 300);
    const fastify = await startReference('fastify', served);
    const nodeHttp = await startReference('node-http', served);
    children.push(fastify.child, nodeHttp.child);

    // One warm-up pass over every endpoint on all three servers before any measurement: V8 optimizes
    // shared code (routing, hooks, serialization) only after thousands of calls, and without this pass
    // the first endpoint measured on a freshly started server would pay for it alone.
    ctx.log(`HTTP warm-up: ${served.length} endpoints x 3 servers (${warmS} s each)`);
    for (const endpoint of HTTP_ENDPOINTS) {
      if (!served.includes(recorded.get(endpoint) as RecordedResponse)) continue;
      for (const baseUrl of [sensor.baseUrl, fastify.url, nodeHttp.url]) {
        await generator.run({
          url: baseUrl + endpoint.path,
          method: endpoint.method,
          connections: CONNECTIONS,
          durationS: warmS,
          ...(endpoint.body !== undefined ? { body: endpoint.body, uniqueBody: true, headers: JSON_HEADERS } : {}),
        });
      }
    }

    const sections: Section[] = [];
    for (const endpoint of HTTP_ENDPOINTS) {
      const answer = recorded.get(endpoint) as RecordedResponse;
      const label = `HTTP ${endpoint.method} ${endpoint.path}`;
      if (answer.status === 404) {
        sections.push(unavailable(label, 'req/s', 'endpoint missing'));
        continue;
      }
      if (answer.status < 200 || answer.status >= 300) {
        sections.push(unavailable(label, 'req/s', `the sensor answered ${answer.status}`));
        continue;
      }
      const measure = async (baseUrl: string, pid: number, connections = CONNECTIONS): Promise<Measurement> => {
        const options: LoadOptions = {
          url: baseUrl + endpoint.path,
          method: endpoint.method,
          connections,
          durationS: warmS,
          ...(endpoint.body !== undefined ? { body: endpoint.body, uniqueBody: true, headers: JSON_HEADERS } : {}),
        };
        await generator.run(options); // warm-up: JIT, connection set-up, SQLite page cache
        const cpu = new CpuMeter(pid).start();
        const result = await generator.run({ ...options, durationS: measureS });
        const cpuS = cpu.seconds();
        return { ...result, cpuMicrosPerRequest: result.requests ? (cpuS * 1e6) / result.requests : Number.NaN };
      };
      ctx.log(`${label}: sensor, bare Fastify, bare node:http, ${rounds} round(s) of ${measureS} s each`);
      // Interleaved rounds: a virtual machine's speed drifts by tens of percent within a minute, so
      // the three servers take turns and each figure is the median of its rounds.
      const withLive = endpoint.method === 'GET' && endpoint.path === TIME_PATH;
      const byServer: Record<keyof Measured, Measurement[]> = {
        sensor: [],
        fastify: [],
        nodeHttp: [],
        fastifyLive: [],
      };
      for (let round = 0; round < rounds; round++) {
        byServer.sensor.push(await measure(sensor.baseUrl, sensor.pid));
        byServer.fastify.push(await measure(fastify.url, fastify.child.pid as number));
        byServer.nodeHttp.push(await measure(nodeHttp.url, nodeHttp.child.pid as number));
        if (withLive)
          byServer.fastifyLive.push(await measure(fastify.url + LIVE_TIME_PREFIX, fastify.child.pid as number));
      }
      const measured: Measured = {
        sensor: medianOfRounds(byServer.sensor),
        fastify: medianOfRounds(byServer.fastify),
        nodeHttp: medianOfRounds(byServer.nodeHttp),
        ...(withLive ? { fastifyLive: medianOfRounds(byServer.fastifyLive) } : {}),
      };
      const silent = Object.entries(measured).find(([, r]) => r.requests === 0);
      if (silent) {
        const r = silent[1];
        sections.push(
          unavailable(
            label,
            'req/s',
            `no 2xx answers from ${silent[0]} (${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts)`,
          ),
        );
        continue;
      }
      sections.push(endpointSection(endpoint, measured));
      if (endpoint.target === 'write-latency') {
        // One writer alone is the cost of one durable commit; 50 show how commits queue (or group).
        for (const writers of OTHER_WRITER_COUNTS)
          sections.push(writersSection(label, writers, await measure(sensor.baseUrl, sensor.pid, writers)));
      }
    }
    return mergeSections(sections);
  } finally {
    await Promise.all([generator.close(), sensor.stop(), ...children.map((c) => stopProcess(c))]);
  }
}
