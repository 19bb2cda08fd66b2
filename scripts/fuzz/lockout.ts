/**
 * Attacks on the connection policy, for the fuzz and soak run (runner.ts):
 * - lockout: one address holds many idle keep-alive connections and many request bodies that never
 *   arrive, renewing each connection as soon as it is closed; meanwhile a client from another
 *   address is timed, and a new client from the holding address retries until it is served;
 * - a restart while a firmware upload is half sent: the upload's connection must close, nothing be
 *   installed, the lock be free, and the unit answer again.
 * Peers are loopback addresses (127.0.0.20 …): each is its own client address to the server.
 */
import { Agent } from 'node:http';
import { connect, type Socket } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { buildImage, generatedPayload } from '../../src/model/image-format.js';
import type { FuzzOptions, LockoutFigures, RestartFigures, Send } from './runner.js';

const HOLDER = '127.0.0.20';
const OTHER = '127.0.0.21';
/** A closed connection is reopened after this pause (a renewal per slot, not a busy loop). */
const RENEW_PAUSE_MS = 100;
/** How long the holder holds before the newcomer from its address and the other client start. */
const SETTLE_MS = 1000;

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** First status line's code in `text`, if any. */
function statusOf(text: string): number | undefined {
  const match = /^HTTP\/1\.1 (\d{3})/.exec(text);
  return match ? Number(match[1]) : undefined;
}

/** One connection from `peer`: `start` misbehaves on it; resolves with its first answer's status and when it closed. */
function holdOnce(
  port: number,
  peer: string,
  start: (socket: Socket) => void,
): Promise<{ status: number | undefined; closedAfterMs: number }> {
  return new Promise((done) => {
    const t0 = Date.now();
    const socket = connect({ port, host: '127.0.0.1', localAddress: peer });
    let received = '';
    socket.on('data', (d: Buffer) => {
      // Only the status line matters; keep the first bytes.
      if (received.length < 64) received += d.toString('latin1');
    });
    socket.on('error', () => undefined);
    socket.once('close', () => done({ status: statusOf(received), closedAfterMs: Date.now() - t0 }));
    socket.once('connect', () => start(socket));
  });
}

const IDLE = (s: Socket) => s.write('GET /api/v1/sensor/config/lidar_mode HTTP/1.1\r\nHost: s\r\n\r\n');
const STALLED_BODY = (s: Socket) =>
  s.write(
    'PUT /api/v1/user/data HTTP/1.1\r\nHost: s\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n"st',
  );

export async function lockoutAttack(
  port: number,
  options: Pick<FuzzOptions, 'lockoutIdle' | 'lockoutStalled' | 'attackSeconds'>,
  send: Send,
): Promise<LockoutFigures> {
  const end = Date.now() + Math.max(6, options.attackSeconds) * 1000;
  const statuses: Record<string, number> = {};
  const cutMs: number[] = [];
  let opened = 0;
  const holder = async (start: (s: Socket) => void, stalled: boolean) => {
    while (Date.now() < end) {
      opened += 1;
      const { status, closedAfterMs } = await holdOnce(port, HOLDER, start);
      const key = status === undefined ? 'closed unanswered' : String(status);
      statuses[key] = (statuses[key] ?? 0) + 1;
      if (stalled && status === 408) cutMs.push(closedAfterMs);
      await delay(RENEW_PAUSE_MS);
    }
  };
  const holders = [
    ...Array.from({ length: options.lockoutIdle }, () => holder(IDLE, false)),
    ...Array.from({ length: options.lockoutStalled }, () => holder(STALLED_BODY, true)),
  ];
  await delay(SETTLE_MS);

  const latencies: number[] = [];
  let failures = 0;
  const other = (async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    while (Date.now() < end) {
      const t0 = process.hrtime.bigint();
      const answer = await send(
        port,
        agent,
        { method: 'GET', path: '/api/v1/sensor/config', headers: {} },
        10_000,
        OTHER,
      );
      latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
      if (answer === 'closed' || answer.status !== 200) failures += 1;
      await delay(20);
    }
    agent.destroy();
  })();
  const newcomer = (async () => {
    const t0 = Date.now();
    while (Date.now() < end) {
      const fresh = new Agent({ keepAlive: false });
      const answer = await send(
        port,
        fresh,
        { method: 'GET', path: '/api/v1/sensor/config', headers: {} },
        10_000,
        HOLDER,
      );
      fresh.destroy();
      if (answer !== 'closed' && answer.status === 200) return Date.now() - t0;
      await delay(100);
    }
    return undefined;
  })();
  const [sameAddressServedAfterMs] = await Promise.all([newcomer, other, ...holders]);
  const sorted = [...latencies].sort((a, b) => a - b);
  const cuts = [...cutMs].sort((a, b) => a - b);
  return {
    idle: options.lockoutIdle,
    stalled: options.lockoutStalled,
    opened,
    statuses,
    stalledCutMs: { count: cuts.length, p50: percentile(cuts, 50), max: cuts.at(-1) ?? 0 },
    other: {
      count: sorted.length,
      p50Ms: percentile(sorted, 50),
      p99Ms: percentile(sorted, 99),
      maxMs: sorted.at(-1) ?? 0,
      failures,
    },
    sameAddressServedAfterMs,
  };
}

export async function restartDuringUploadSequence(port: number, send: Send): Promise<RestartFigures> {
  const agent = new Agent({ keepAlive: false });
  const firmware = async () => {
    const answer = await send(port, agent, { method: 'GET', path: '/api/v1/system/firmware', headers: {} });
    return answer === 'closed' ? 'closed' : answer.status;
  };
  const firmwareText = () =>
    fetch(`http://127.0.0.1:${port}/api/v1/system/firmware`).then(
      (r) => r.text(),
      () => 'unreachable',
    );
  await firmware();
  const before = await firmwareText();
  const image = buildImage('ousteros-image-prod-bootes-v3.2.0+20250101120000', generatedPayload('restart', 2_000_000));
  const upload = connect({ port, host: '127.0.0.1', localAddress: '127.0.0.22' });
  upload.on('error', () => undefined);
  let closedAt: number | undefined;
  upload.once('close', () => (closedAt = Date.now()));
  await new Promise((resolve) => upload.once('connect', resolve));
  upload.write(
    `POST /api/v1/system/firmware HTTP/1.1\r\nHost: s\r\nContent-Type: application/octet-stream\r\nContent-Length: ${image.length}\r\n\r\n`,
  );
  upload.write(image.subarray(0, image.length / 2));
  // Keep the upload well above its minimum rate (the server's `uploadMinRate`) so only the restart can end it.
  let sent = image.length / 2;
  const trickle = setInterval(() => {
    if (closedAt !== undefined || sent + 10_000 >= image.length) return;
    upload.write(image.subarray(sent, sent + 10_000));
    sent += 10_000;
  }, 100);
  await delay(300);
  await send(port, agent, { method: 'POST', path: '/api/v1/system/restart', headers: {} });
  const answeredAt = Date.now();
  let answersAgainAt: number | undefined;
  while (Date.now() - answeredAt < 30_000) {
    if (answersAgainAt === undefined && (await firmware()) === 200) answersAgainAt = Date.now();
    if (answersAgainAt !== undefined && closedAt !== undefined) break;
    await delay(20);
  }
  clearInterval(trickle);
  upload.destroy();
  const after = await firmwareText();
  const next = await send(port, agent, {
    method: 'POST',
    path: '/api/v1/system/firmware',
    headers: { 'content-type': 'application/octet-stream' },
    body: Buffer.alloc(16, 3),
  });
  agent.destroy();
  return {
    uploadClosedAfterMs: closedAt === undefined ? undefined : Math.max(0, closedAt - answeredAt),
    answersAgainAfterMs: answersAgainAt === undefined ? undefined : answersAgainAt - answeredAt,
    installedNothing: after === before,
    lockReleased: next !== 'closed' && next.status !== 409,
  };
}
