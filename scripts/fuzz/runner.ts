/**
 * The fuzz and soak run: a real server process (dist/cli.js) on loopback, attacked with mutated
 * requests over every route, malformed HTTP on raw sockets, idle and slow clients and a connection
 * flood, while a well-behaved client measures its latency. Checks: no 5xx (503 with Retry-After while
 * the unit reinitializes is the documented answer and counted apart), no crash, no answer over the
 * bound, no state change after a refused write, every stalled connection closed within its limit.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { encodeImageHeader } from '../../src/model/image-format.js';
import { CLI_PATH, freePort, unitArgs } from '../../test/helpers/cli-process.js';
import { fuzzRequests, malformedRequests, type FuzzRequest } from './corpus.js';
import { lockoutAttack, restartDuringUploadSequence } from './lockout.js';

export interface FuzzOptions {
  /** Mutated/valid requests over the routes (snapshots, raw and attack traffic come on top). */
  requests: number;
  rawRequests: number;
  attackSeconds: number;
  seed: number;
  /** Server limits in seconds. */
  headersTimeout: number;
  requestTimeout: number;
  uploadIdleTimeout: number;
  maxConnections: number;
  /** Seconds a request body gets before its rate is checked (and the window it is averaged over). */
  bodyGrace: number;
  /** The lockout attack: one address holds this many idle keep-alive and stalled-body connections. */
  lockoutIdle: number;
  lockoutStalled: number;
  progress?: (line: string) => void;
}

export interface Failure {
  kind: string;
  detail: string;
}

export interface FuzzReport {
  durationS: number;
  requests: {
    routes: number;
    writes: number;
    snapshots: number;
    raw: number;
    attack: number;
    wellBehaved: number;
    total: number;
  };
  statuses: Record<string, number>;
  serverErrors: number;
  documented503: number;
  clientClosedEarly: number;
  stateChangesOn4xx: number;
  crashed: boolean;
  maxAnswerBytes: number;
  maxAnswerWhat: string;
  maxRssMb: number;
  stalls: { opened: number; closedInTime: number; late: number };
  uploadLockReleasedAfterMs: number | undefined;
  flood: { connections: number; served: number; refused503: number; other: number };
  lockout: LockoutFigures;
  restartDuringUpload: RestartFigures | undefined;
  wellBehaved: { count: number; p50Ms: number; p99Ms: number; maxMs: number; failures: number };
  failures: Failure[];
}

/** One address holds idle and stalled-body connections (renewing each as it is closed); others are measured. */
export interface LockoutFigures {
  idle: number;
  stalled: number;
  /** Connections the holding address opened in all (renewals included). */
  opened: number;
  /** Answers its connections got: 408 (body cut), 503 (refused: its slots all busy), 200. */
  statuses: Record<string, number>;
  /** How long after its headers a stalled body (one admitted, answered 408) was cut: median and max ms. */
  stalledCutMs: { count: number; p50: number; max: number };
  /** A client from another address: every request, latency. */
  other: { count: number; p50Ms: number; p99Ms: number; maxMs: number; failures: number };
  /** A new client from the holding address: ms until its first 200 (retrying on 503), or undefined. */
  sameAddressServedAfterMs: number | undefined;
}

/** A firmware upload half-sent when a restart comes. */
export interface RestartFigures {
  /** ms from the restart's answer until the upload's connection was closed (undefined: never). */
  uploadClosedAfterMs: number | undefined;
  /** ms from the restart's answer until the unit answered 200 again. */
  answersAgainAfterMs: number | undefined;
  /** The running firmware after the restart is the one before. */
  installedNothing: boolean;
  /** The next upload was judged on its own (not 409 busy). */
  lockReleased: boolean;
}

export const ANSWER_BOUND_BYTES = 64 * 1024;
const SLACK_MS = 3000;

export interface Answer {
  status: number;
  bytes: number;
  retryAfter: boolean;
}

export type Send = typeof send;

function send(
  port: number,
  agent: Agent,
  req: Pick<FuzzRequest, 'method' | 'path' | 'headers' | 'body'>,
  timeoutMs = 30_000,
  localAddress?: string,
): Promise<Answer | 'closed'> {
  return new Promise((done) => {
    let settled = false;
    const finish = (value: Answer | 'closed') => {
      if (settled) return;
      settled = true;
      done(value);
    };
    let outgoing;
    try {
      outgoing = httpRequest(
        {
          host: '127.0.0.1',
          port,
          method: req.method,
          path: req.path,
          headers: req.headers,
          agent,
          timeout: timeoutMs,
          localAddress,
        },
        (res) => {
          let bytes = 0;
          res.on('data', (chunk: Buffer) => (bytes += chunk.length));
          res.on('end', () =>
            finish({ status: res.statusCode ?? 0, bytes, retryAfter: res.headers['retry-after'] !== undefined }),
          );
          res.on('error', () => finish({ status: res.statusCode ?? 0, bytes, retryAfter: false }));
        },
      );
    } catch {
      // node:http refuses some targets itself (control characters): nothing reached the server.
      finish('closed');
      return;
    }
    outgoing.on('timeout', () => outgoing.destroy(new Error('client timeout')));
    outgoing.on('error', () => finish('closed'));
    outgoing.end(req.body);
  });
}

function rssMb(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

const SNAPSHOT_PATHS = [
  '/api/v1/sensor/config',
  '/api/v1/sensor/config?staging=true',
  '/api/v1/user/data?include_metadata=true',
  '/api/v1/system/network/ipv4/override',
  '/api/v1/system/network/speed_override',
  '/api/v1/time/ptp/profile',
  '/api/v1/system/firmware',
  '/api/v1/sensor/metadata/sensor_info',
];

/** The unit's readable state (what a refused request must leave as it was). */
async function snapshot(port: number, agent: Agent): Promise<string> {
  const parts = await Promise.all(
    SNAPSHOT_PATHS.map(
      (path) =>
        new Promise<string>((done) => {
          httpRequest({ host: '127.0.0.1', port, path, agent }, (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (d: string) => (text += d));
            res.on('end', () => {
              if (path.endsWith('sensor_info')) {
                const info = JSON.parse(text) as { initialization_id: number; status: string };
                text = `${info.initialization_id}`;
              }
              done(`${res.statusCode} ${text}`);
            });
          })
            .on('error', (e) => done(`error ${e.message}`))
            .end();
        }),
    ),
  );
  return parts.join('\n');
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export async function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const progress = options.progress ?? (() => undefined);
  const started = Date.now();
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'sensor-fuzz-'));
  const failures: Failure[] = [];
  const fail = (kind: string, detail: string) => {
    if (failures.length < 50) failures.push({ kind, detail });
  };
  const statuses: Record<string, number> = {};
  let serverErrors = 0;
  let documented503 = 0;
  let clientClosedEarly = 0;
  let maxAnswerBytes = 0;
  let maxAnswerWhat = '';
  const record = (answer: Answer | 'closed', what: string) => {
    if (answer === 'closed') {
      clientClosedEarly += 1;
      return;
    }
    statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
    if (answer.status === 503 && answer.retryAfter) documented503 += 1;
    else if (answer.status >= 500) {
      serverErrors += 1;
      fail('5xx', `${answer.status} for ${what}`);
    }
    if (answer.bytes > maxAnswerBytes) {
      maxAnswerBytes = answer.bytes;
      maxAnswerWhat = what;
    }
  };

  const child: ChildProcess = spawn(
    process.execPath,
    [
      CLI_PATH,
      ...unitArgs('127.0.0.1', port, dataDir, 'silent'),
      '--headers-timeout',
      String(options.headersTimeout),
      '--request-timeout',
      String(options.requestTimeout),
      '--upload-idle-timeout',
      String(options.uploadIdleTimeout),
      '--max-connections',
      String(options.maxConnections),
      '--body-grace',
      String(options.bodyGrace),
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  let crashed = false;
  child.once('exit', (code, signal) => {
    if (!stopping) {
      crashed = true;
      fail('crash', `server exited (code ${code}, signal ${signal}): ${stderr.slice(-2000)}`);
    }
  });
  let stopping = false;
  let maxRssMb = 0;
  const rssTimer = setInterval(() => (maxRssMb = Math.max(maxRssMb, rssMb(child.pid!))), 100);

  const agents = [
    new Agent({ keepAlive: true, maxSockets: 1 }),
    new Agent({ keepAlive: true, maxSockets: 4 }),
    new Agent({ keepAlive: true, maxSockets: 8 }),
  ];
  const [writeAgent, readAgent, snapshotAgent] = agents;
  const counts = { routes: 0, writes: 0, snapshots: 0, raw: 0, attack: 0, wellBehaved: 0 };
  const stalls = { opened: 0, closedInTime: 0, late: 0 };
  let uploadLockReleasedAfterMs: number | undefined;
  const flood = { connections: 0, served: 0, refused503: 0, other: 0 };
  let lockout: LockoutFigures = {
    idle: 0,
    stalled: 0,
    opened: 0,
    statuses: {},
    stalledCutMs: { count: 0, p50: 0, max: 0 },
    other: { count: 0, p50Ms: 0, p99Ms: 0, maxMs: 0, failures: 0 },
    sameAddressServedAfterMs: undefined,
  };
  let restartDuringUpload: RestartFigures | undefined;
  const latencies: number[] = [];
  let wellBehavedFailures = 0;

  try {
    const readyBy = Date.now() + 30_000;
    for (;;) {
      const answer = await send(port, readAgent, { method: 'GET', path: '/api/v1/sensor/config', headers: {} }).catch(
        () => 'closed' as const,
      );
      if (answer !== 'closed' && answer.status === 200) break;
      if (crashed || Date.now() > readyBy) throw new Error(`server did not start: ${stderr}`);
      await delay(50);
    }

    // 1. Routes: a sequential lane of writes, each refused one checked against the state before it,
    //    and parallel lanes of reads (which must never change state either: the write lane would see it).
    progress(`routes: ${options.requests} requests`);
    let done = false;
    const writeLane = (async () => {
      let baseline = await snapshot(port, snapshotAgent);
      counts.snapshots += SNAPSHOT_PATHS.length;
      let previous = '';
      for (const req of fuzzRequests(options.seed)) {
        if (done || crashed) return;
        if (!req.write) continue;
        const answer = await send(port, writeAgent, req);
        counts.routes += 1;
        counts.writes += 1;
        const what = `${req.method} ${req.path.slice(0, 120)} (${req.label})`;
        record(answer, what);
        const after = await snapshot(port, snapshotAgent);
        counts.snapshots += SNAPSHOT_PATHS.length;
        if (answer !== 'closed' && answer.status >= 400 && answer.status < 500 && after !== baseline) {
          fail(
            'state change on 4xx',
            `${answer.status} for ${what} (previous: ${previous}):\nbefore ${baseline}\nafter ${after}`,
          );
        }
        previous = `${answer === 'closed' ? 'closed' : answer.status} ${what}`;
        baseline = after;
        if (counts.routes >= options.requests) done = true;
      }
    })();
    const readLane = async (seed: number) => {
      for (const req of fuzzRequests(seed)) {
        if (done || crashed) return;
        if (req.write) continue;
        record(await send(port, readAgent, req), `${req.method} ${req.path.slice(0, 120)} (${req.label})`);
        counts.routes += 1;
        if (counts.routes % 10_000 === 0)
          progress(`  ${counts.routes} route requests, ${counts.writes} writes, max RSS ${maxRssMb.toFixed(0)} MB`);
        if (counts.routes >= options.requests) done = true;
      }
    };
    await Promise.all([writeLane, readLane(options.seed + 1), readLane(options.seed + 2), readLane(options.seed + 3)]);

    // 2. Malformed HTTP on raw sockets: answered with a 4xx or closed, never hanging past the header limit.
    progress(`raw: ${options.rawRequests} malformed requests`);
    const raw = malformedRequests(options.seed + 7);
    const rawWorker = async () => {
      while (counts.raw < options.rawRequests && !crashed) {
        counts.raw += 1;
        const { bytes, label } = raw.next().value as { bytes: Buffer; label: string };
        const outcome = await rawExchange(port, bytes, options.headersTimeout * 1000 + SLACK_MS);
        if (outcome.status !== undefined)
          record({ status: outcome.status, bytes: outcome.bodyBytes, retryAfter: outcome.retryAfter }, `raw ${label}`);
        if (!outcome.closed && outcome.status === undefined) fail('raw hang', `${label}: neither answered nor closed`);
      }
    };
    // Many malformed requests are only ended by the header timeout: enough workers to keep the run short.
    await Promise.all(Array.from({ length: 48 }, rawWorker));

    // 3. Slow and idle clients for attackSeconds, while a well-behaved client measures its latency.
    progress(`attack: ${options.attackSeconds} s of idle, slow-header, slow-body clients and a stalled upload`);
    const attackEnd = Date.now() + options.attackSeconds * 1000;
    const attackers: Promise<void>[] = [];
    // Each kind of attacker from its own loopback address; the well-behaved client is 127.0.0.1.
    const stallKinds = [
      { n: 100, peer: '127.0.0.2', limitMs: options.headersTimeout * 1000, start: (_s: Socket) => undefined },
      {
        n: 30,
        peer: '127.0.0.3',
        limitMs: options.headersTimeout * 1000,
        start: (s: Socket) => {
          s.write('GET /api/v1/sensor/config HTTP/1.1\r\nHost: s\r\nX-Slow: ');
          const drip = setInterval(() => (s.writable ? s.write('a') : clearInterval(drip)), 200);
          s.once('close', () => clearInterval(drip));
        },
      },
      {
        n: 30,
        peer: '127.0.0.4',
        // Cut by the minimum body rate after the grace, or by the request timeout if that is shorter.
        limitMs: Math.min(options.requestTimeout, options.bodyGrace) * 1000 + 250,
        start: (s: Socket) =>
          s.write(
            'PUT /api/v1/user/data HTTP/1.1\r\nHost: s\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n"stalled',
          ),
      },
    ];
    for (const kind of stallKinds) {
      for (let i = 0; i < kind.n; i++) {
        attackers.push(
          (async () => {
            while (Date.now() < attackEnd && !crashed) {
              counts.attack += 1;
              stalls.opened += 1;
              const closedAfter = await stalledConnection(port, kind.start, kind.limitMs + SLACK_MS * 2, kind.peer);
              if (closedAfter !== undefined && closedAfter <= kind.limitMs + SLACK_MS) stalls.closedInTime += 1;
              else {
                stalls.late += 1;
                fail(
                  'stall',
                  `a stalled connection (limit ${kind.limitMs} ms) was ${closedAfter === undefined ? 'never closed' : `closed after ${closedAfter} ms`}`,
                );
              }
            }
          })(),
        );
      }
    }
    const uploadStall = (async () => {
      const startedAt = Date.now();
      // A valid header announcing a 5 MB image, then nothing: the upload holds the lock until cut.
      const header = encodeImageHeader({
        imageRev: 'ousteros-image-prod-bootes-v3.2.0+20250101120000',
        payloadLength: 5_000_000,
        payloadSha256: Buffer.alloc(32, 7),
      });
      const closedAfter = await stalledConnection(
        port,
        (s) => {
          s.write(
            `POST /api/v1/system/firmware HTTP/1.1\r\nHost: s\r\nContent-Type: application/octet-stream\r\nContent-Length: ${header.length + 5_000_000}\r\n\r\n`,
          );
          s.write(Buffer.concat([header, Buffer.alloc(8192, 1)]));
        },
        options.uploadIdleTimeout * 1000 + SLACK_MS * 2,
        '127.0.0.6',
      );
      counts.attack += 1;
      stalls.opened += 1;
      if (closedAfter !== undefined && closedAfter <= options.uploadIdleTimeout * 1000 + SLACK_MS)
        stalls.closedInTime += 1;
      else {
        stalls.late += 1;
        fail(
          'stall',
          `the stalled firmware upload was ${closedAfter === undefined ? 'never cut' : `cut after ${closedAfter} ms`}`,
        );
      }
      for (;;) {
        const answer = await send(port, readAgent, {
          method: 'POST',
          path: '/api/v1/system/firmware',
          headers: { 'content-type': 'application/octet-stream' },
          body: Buffer.alloc(16, 3),
        });
        counts.attack += 1;
        if (answer !== 'closed' && answer.status !== 409) {
          uploadLockReleasedAfterMs = Date.now() - startedAt;
          break;
        }
        if (Date.now() - startedAt > options.uploadIdleTimeout * 1000 + SLACK_MS * 2) {
          fail('upload lock', 'the upload lock was not released after the stalled upload');
          break;
        }
        await delay(50);
      }
    })();
    const wellBehaved = (async () => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      // Let the attackers connect first.
      await delay(200);
      while (Date.now() < attackEnd && !crashed) {
        const t0 = process.hrtime.bigint();
        const answer = await send(port, agent, { method: 'GET', path: '/api/v1/sensor/config', headers: {} }, 10_000);
        latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
        counts.wellBehaved += 1;
        if (answer === 'closed' || answer.status !== 200) {
          wellBehavedFailures += 1;
          fail('well-behaved client', `answer ${answer === 'closed' ? 'closed' : answer.status}`);
        }
        await delay(5);
      }
      agent.destroy();
    })();
    await Promise.all([...attackers, uploadStall, wellBehaved]);

    // 4. A flood beyond the connection cap: a 503 or an answer for each, never a hang.
    const floodSize = options.maxConnections + 50;
    progress(`flood: ${floodSize} connections at once`);
    flood.connections = floodSize;
    const floodOutcomes = await floodExchange(port, floodSize, 10_000, '127.0.0.5');
    for (const outcome of floodOutcomes) {
      counts.attack += 1;
      if (outcome.status === 200) flood.served += 1;
      else if (outcome.status === 503 && outcome.retryAfter) flood.refused503 += 1;
      else {
        // Beyond the answered excess Node closes a connection unanswered: a refusal, not a hang.
        flood.other += 1;
        if (!outcome.closed) fail('flood', `a flood connection got ${outcome.status ?? 'no answer'} and stayed open`);
      }
    }
    // The server notices the flood's closes a moment later: poll on fresh connections for a few seconds.
    const servedBy = Date.now() + 5000;
    for (;;) {
      const fresh = new Agent({ keepAlive: false });
      const after = await send(port, fresh, { method: 'GET', path: '/api/v1/sensor/config', headers: {} });
      fresh.destroy();
      if (after !== 'closed' && after.status === 200) break;
      if (Date.now() > servedBy) {
        fail(
          'flood',
          `the unit did not serve within 5 s after the flood (${after === 'closed' ? 'closed' : after.status})`,
        );
        break;
      }
      await delay(50);
    }

    // 5. Lockout: one address holds idle and stalled-body connections, renewing each as it
    //    is closed; a client from another address and a newcomer from the holding address are measured.
    progress(
      `lockout: one address holds ${options.lockoutIdle} idle + ${options.lockoutStalled} stalled-body connections`,
    );
    lockout = await lockoutAttack(port, options, send);
    counts.attack += lockout.opened;
    if (lockout.other.failures > 0)
      fail('lockout', `the client from another address failed ${lockout.other.failures} times`);
    if (lockout.sameAddressServedAfterMs === undefined)
      fail('lockout', 'a new client from the holding address was never served');

    // 6. A restart while a firmware upload is half sent: a reboot to every client (last: it restarts the unit).
    progress('restart during a firmware upload');
    restartDuringUpload = await restartDuringUploadSequence(port, send);
    if (restartDuringUpload.uploadClosedAfterMs === undefined) fail('restart', 'the upload in flight was not closed');
    if (!restartDuringUpload.installedNothing) fail('restart', 'the cut upload installed an image');
    if (!restartDuringUpload.lockReleased) fail('restart', 'the cut upload kept the upload lock');
  } finally {
    stopping = true;
    clearInterval(rssTimer);
    for (const agent of agents) agent.destroy();
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
  const sorted = [...latencies].sort((a, b) => a - b);
  const total = counts.routes + counts.snapshots + counts.raw + counts.attack + counts.wellBehaved;
  const stateChangesOn4xx = failures.filter((f) => f.kind === 'state change on 4xx').length;
  return {
    durationS: (Date.now() - started) / 1000,
    requests: { ...counts, total },
    statuses,
    serverErrors,
    documented503,
    clientClosedEarly,
    stateChangesOn4xx,
    crashed,
    maxAnswerBytes,
    maxAnswerWhat,
    maxRssMb,
    stalls,
    uploadLockReleasedAfterMs,
    flood,
    lockout,
    restartDuringUpload,
    wellBehaved: {
      count: sorted.length,
      p50Ms: percentile(sorted, 50),
      p99Ms: percentile(sorted, 99),
      maxMs: sorted.at(-1) ?? 0,
      failures: wellBehavedFailures,
    },
    failures,
  };
}

interface RawOutcome {
  status: number | undefined;
  bodyBytes: number;
  retryAfter: boolean;
  closed: boolean;
}

/** Sends bytes on a new connection; waits for the first answer and for the close (up to `waitMs`). */
function rawExchange(port: number, bytes: Buffer, waitMs: number): Promise<RawOutcome> {
  return new Promise((done) => {
    const socket = connect(port, '127.0.0.1');
    let received = Buffer.alloc(0);
    let finished = false;
    const finish = (closed: boolean) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      socket.destroy();
      const text = received.toString('latin1');
      const match = /^HTTP\/1\.1 (\d{3})/.exec(text);
      const headerEnd = text.indexOf('\r\n\r\n');
      done({
        status: match ? Number(match[1]) : undefined,
        bodyBytes: headerEnd >= 0 ? received.length - headerEnd - 4 : 0,
        retryAfter: /\r\nretry-after:/i.test(text),
        closed,
      });
    };
    const timer = setTimeout(() => finish(false), waitMs);
    socket.on('error', () => finish(true));
    socket.on('close', () => finish(true));
    socket.on('data', (d: Buffer) => {
      received = Buffer.concat([received, d]);
    });
    socket.once('connect', () => socket.write(bytes));
  });
}

/**
 * Opens `n` connections, sends one keep-alive GET on each and keeps them all open until each has its
 * answer or was closed (or `waitMs` passed): served connections stay open, so the cap is reached.
 */
async function floodExchange(port: number, n: number, waitMs: number, localAddress: string): Promise<RawOutcome[]> {
  const sockets: Socket[] = [];
  const outcomes = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<RawOutcome>((done) => {
          const socket = connect({ port, host: '127.0.0.1', localAddress });
          sockets.push(socket);
          let received = '';
          let settled = false;
          const finish = (closed: boolean) => {
            if (settled) return;
            settled = true;
            clearTimeout(timer);
            const match = /^HTTP\/1\.1 (\d{3})/.exec(received);
            done({
              status: match ? Number(match[1]) : undefined,
              bodyBytes: 0,
              retryAfter: /\r\nretry-after:/i.test(received),
              closed,
            });
          };
          const timer = setTimeout(() => finish(false), waitMs);
          socket.on('error', () => finish(true));
          socket.on('close', () => finish(true));
          socket.on('data', (d: Buffer) => {
            received += d.toString('latin1');
            const end = received.indexOf('\r\n\r\n');
            const length = /\r\ncontent-length: (\d+)/i.exec(received);
            if (end >= 0 && length && received.length >= end + 4 + Number(length[1])) finish(false);
          });
          socket.once('connect', () =>
            socket.write('GET /api/v1/sensor/config/lidar_mode HTTP/1.1\r\nHost: s\r\n\r\n'),
          );
        }),
    ),
  );
  for (const socket of sockets) socket.destroy();
  return outcomes;
}

/** Opens a connection, lets `start` misbehave on it, and resolves when the server closes it (ms) or undefined. */
function stalledConnection(
  port: number,
  start: (socket: Socket) => void,
  waitMs: number,
  localAddress: string,
): Promise<number | undefined> {
  return new Promise((done) => {
    const t0 = Date.now();
    const socket = connect({ port, host: '127.0.0.1', localAddress });
    let settled = false;
    const finish = (value: number | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      done(value);
    };
    const timer = setTimeout(() => finish(undefined), waitMs);
    socket.on('error', () => finish(Date.now() - t0));
    socket.on('close', () => finish(Date.now() - t0));
    socket.on('data', () => undefined);
    socket.once('connect', () => start(socket));
  });
}
