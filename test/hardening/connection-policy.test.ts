/**
 * Issue 23: no client can lock others out. A per-address connection cap below the unit's, idle
 * keep-alive connections closed (oldest first) to admit new ones, request bodies that must keep a
 * minimum rate, and 503 + Retry-After only when every slot in the way is busy. Then a restart is a
 * reboot to every client: keep-alive connections and uploads in flight end, an upload cut this way
 * installs nothing and frees its lock, and the unit answers again.
 *
 * A real CLI process; peers are loopback addresses 127.0.0.2… (each its own client address). The
 * request timeouts are an hour, so whatever is cut here is cut by the minimum rate, not by them.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildImage, generatedPayload } from '../../src/model/image-format.js';
import { uploadFirmware } from '../firmware/http-upload.js';
import { startCli, type CliProcess } from '../helpers/cli-process.js';
import { statusOnceUploadLockFree } from '../helpers/upload-lock.js';
import { closesWithin, rawConnect, type RawConnection } from '../helpers/raw-http.js';
import { waitFor } from '../helpers/poll.js';

const MAX_CONNECTIONS = 12;
const PER_ADDRESS = 4;
/** Generous deadline to observe a cut or a close (polling, not a timing assertion). */
const WITHIN_MS = 10_000;
let cli: CliProcess;
let port: number;
const open: RawConnection[] = [];

beforeAll(async () => {
  // Environment variables (the same options as the flags).
  cli = await startCli({
    env: {
      SENSOR_REQUEST_TIMEOUT: '3600',
      SENSOR_UPLOAD_IDLE_TIMEOUT: '3600',
      SENSOR_KEEP_ALIVE_TIMEOUT: '3600',
      SENSOR_MAX_CONNECTIONS: String(MAX_CONNECTIONS),
      SENSOR_MAX_CONNECTIONS_PER_ADDRESS: String(PER_ADDRESS),
      SENSOR_BODY_GRACE: '0.5',
      SENSOR_BODY_MIN_RATE: '256',
      SENSOR_UPLOAD_MIN_RATE: '4096',
    },
  });
  port = cli.port;
});
afterAll(async () => {
  for (const c of open) c.destroy();
  await cli.stop();
});

async function connectFrom(peer: string): Promise<RawConnection> {
  const c = await rawConnect(port, '127.0.0.1', peer);
  open.push(c);
  return c;
}

const GET = 'GET /api/v1/sensor/config/lidar_mode HTTP/1.1\r\nHost: s\r\n\r\n';

/** A keep-alive connection from `peer` that made one request and now sits idle. */
async function idleFrom(peer: string): Promise<RawConnection> {
  const c = await connectFrom(peer);
  c.write(GET);
  expect((await c.response())?.status).toBe(200);
  return c;
}

/**
 * A connection from `peer` whose request body never comes. It asks for `100 Continue`, so the
 * interim answer shows the server has taken up the request (the connection is busy) before the
 * test goes on.
 */
async function stalledBodyFrom(peer: string): Promise<RawConnection> {
  const c = await connectFrom(peer);
  c.write(
    'PUT /api/v1/user/data HTTP/1.1\r\nHost: s\r\nContent-Type: application/json\r\nContent-Length: 100\r\nExpect: 100-continue\r\n\r\n',
  );
  await waitFor(() => c.unparsed().includes('100 Continue'), WITHIN_MS, 'the interim 100');
  c.write('"p');
  return c;
}

async function statusFrom(peer: string): Promise<number> {
  const c = await connectFrom(peer);
  c.write(GET);
  const res = await c.response(WITHIN_MS);
  c.destroy();
  return res?.status ?? 0;
}

async function closeAll(): Promise<void> {
  for (const c of open.splice(0)) c.destroy();
  // The server sees the closes; wait until a fresh peer is served.
  await waitFor(async () => (await statusFrom('127.0.0.99')) === 200, WITHIN_MS, 'the slots to free');
}

describe('connection slots', () => {
  it('one address holding many idle keep-alive connections locks out neither others nor itself', async () => {
    const held: RawConnection[] = [];
    for (let i = 0; i < MAX_CONNECTIONS + 4; i++) held.push(await idleFrom('127.0.0.2'));
    // Its own newest connections replaced its oldest: only PER_ADDRESS are left open.
    await waitFor(async () => held.filter((c) => !c.isClosed()).length === PER_ADDRESS, WITHIN_MS, 'oldest closed');
    expect(held.slice(-PER_ADDRESS).every((c) => !c.isClosed())).toBe(true);
    expect(await statusFrom('127.0.0.3')).toBe(200);
    expect(await statusFrom('127.0.0.2')).toBe(200);
    await closeAll();
  });

  it('at the unit cap the oldest idle connection (any address) makes room; nobody gets 503', async () => {
    const held: RawConnection[] = [];
    for (let peer = 2; peer < 2 + MAX_CONNECTIONS / PER_ADDRESS; peer++) {
      for (let i = 0; i < PER_ADDRESS; i++) held.push(await idleFrom(`127.0.0.${peer}`));
    }
    expect(await statusFrom('127.0.0.20')).toBe(200);
    expect(await closesWithin(held[0], WITHIN_MS)).toBe(true);
    expect(held.slice(1).every((c) => !c.isClosed())).toBe(true);
    await closeAll();
  });

  it('503 + Retry-After only when every slot of the address is busy with real work; other addresses are served', async () => {
    // Live-view streams: requests in progress for as long as they are watched (real work).
    for (let i = 0; i < PER_ADDRESS; i++) {
      const stream = await connectFrom('127.0.0.4');
      stream.write('GET /web/api/live-image HTTP/1.1\r\nHost: s\r\n\r\n');
      await waitFor(() => stream.unparsed().includes('text/event-stream'), WITHIN_MS, 'the live view stream');
    }
    const refused = await connectFrom('127.0.0.4');
    refused.write(GET);
    const res = await refused.response(WITHIN_MS);
    expect(res?.status).toBe(503);
    expect(res?.headers['retry-after']).toBe('1');
    expect(res?.headers.connection).toBe('close');
    expect(JSON.parse(res!.body)).toMatchObject({ status: 503, detail: expect.stringContaining('per address') });
    expect(await closesWithin(refused, WITHIN_MS)).toBe(true);
    expect(await statusFrom('127.0.0.5')).toBe(200);
    await closeAll();
  });

  it('a stalling body gives its slot to a newcomer from the same address', async () => {
    const stalled = [];
    for (let i = 0; i < PER_ADDRESS; i++) stalled.push(await stalledBodyFrom('127.0.0.15'));
    // Served at once, or after a 503 or two while the bodies are younger than half a window.
    expect(await waitFor(async () => (await statusFrom('127.0.0.15')) === 200, WITHIN_MS, 'a slot')).toBe(true);
    const cut = await stalled[0].response(WITHIN_MS);
    expect(cut?.status).toBe(408);
    await closeAll();
  });
});

describe('minimum body rate', () => {
  it('a stalled body is cut (408, closed) long before the request timeout; nothing is stored', async () => {
    const before = await (await fetch(`${cli.baseUrl}/api/v1/user/data`)).text();
    const stalled = await stalledBodyFrom('127.0.0.6');
    const res = await stalled.response(WITHIN_MS);
    expect(res?.status).toBe(408);
    expect(res?.headers.connection).toBe('close');
    expect(await closesWithin(stalled, WITHIN_MS)).toBe(true);
    expect(await (await fetch(`${cli.baseUrl}/api/v1/user/data`)).text()).toBe(before);
  });

  it('a slow body above the minimum rate is served', async () => {
    const c = await connectFrom('127.0.0.7');
    const body = JSON.stringify('x'.repeat(1998));
    c.write(
      `PUT /api/v1/user/data HTTP/1.1\r\nHost: s\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    // About 2 KB/s, eight times the minimum, over about a second (two windows after the grace).
    for (let at = 0; at < body.length; at += 200) {
      c.write(body.slice(at, at + 200));
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect((await c.response(WITHIN_MS))?.status).toBeLessThan(300);
  });

  it('a stalled firmware upload is cut: lock released, partial slot discarded', async () => {
    const slow = await connectFrom('127.0.0.8');
    // A valid image header and the start of its payload, then nothing.
    const image = buildImage('ousteros-image-prod-bootes-v3.2.0+20250101120000', generatedPayload('s', 1_000_000));
    slow.write(
      `POST /api/v1/system/firmware HTTP/1.1\r\nHost: s\r\nContent-Type: application/octet-stream\r\nContent-Length: ${image.length}\r\n\r\n`,
    );
    slow.write(image.subarray(0, 8192));
    expect(await closesWithin(slow, WITHIN_MS)).toBe(true);
    const next = await statusOnceUploadLockFree(cli.baseUrl, WITHIN_MS);
    expect(next).toBe(400);
    expect(readdirSync(join(cli.dataDir, 'firmware')).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});

describe('a restart is a reboot to every client', () => {
  const firmware = async () => (await fetch(`${cli.baseUrl}/api/v1/system/firmware`)).json();
  const backUp = () =>
    waitFor(async () => (await statusFrom('127.0.0.9')) === 200, WITHIN_MS * 3, 'the unit to answer again');

  it('POST restart: keep-alive connections, a live-view stream and an upload in flight are closed; the upload installs nothing', async () => {
    const before = await firmware();
    const keepAlive = await idleFrom('127.0.0.10');
    const upload = await connectFrom('127.0.0.11');
    const image = buildImage('ousteros-image-prod-bootes-v3.2.0+20250101120000', generatedPayload('r', 400_000));
    upload.write(
      `POST /api/v1/system/firmware HTTP/1.1\r\nHost: s\r\nContent-Type: application/octet-stream\r\nContent-Length: ${image.length}\r\n\r\n`,
    );
    upload.write(image.subarray(0, 200_000));
    // The upload keeps above its minimum rate (about 10 KB/s) until the restart comes; it never finishes.
    let sent = 200_000;
    const trickle = setInterval(() => {
      if (upload.isClosed() || sent + 1000 >= image.length) return;
      upload.write(image.subarray(sent, sent + 1000));
      sent += 1000;
    }, 100);
    const liveView = await connectFrom('127.0.0.14');
    liveView.write('GET /web/api/live-image HTTP/1.1\r\nHost: s\r\n\r\n');
    await waitFor(() => liveView.unparsed().includes('text/event-stream'), WITHIN_MS, 'the live view stream');
    const restart = await fetch(`${cli.baseUrl}/api/v1/system/restart`, { method: 'POST' });
    expect(restart.status).toBeLessThan(300);
    expect(await closesWithin(keepAlive, WITHIN_MS)).toBe(true);
    expect(await closesWithin(liveView, WITHIN_MS)).toBe(true);
    expect(await closesWithin(upload, WITHIN_MS)).toBe(true);
    clearInterval(trickle);
    await backUp();
    expect(await firmware()).toEqual(before);
    // The lock went with the connection: the next upload is judged on its own (garbage: 400), not 409.
    expect(await statusOnceUploadLockFree(cli.baseUrl, WITHIN_MS)).toBe(400);
  });

  it('DELETE config closes keep-alive connections too, then the unit answers', async () => {
    const keepAlive = await idleFrom('127.0.0.12');
    const reset = await fetch(`${cli.baseUrl}/api/v1/sensor/config`, { method: 'DELETE' });
    expect(reset.status).toBeLessThan(300);
    expect(await closesWithin(keepAlive, WITHIN_MS)).toBe(true);
    await backUp();
  });

  it('the reboot after a firmware update closes every other connection', async () => {
    const keepAlive = await idleFrom('127.0.0.13');
    const image = buildImage('ousteros-image-prod-bootes-v3.2.1+20250101120000', generatedPayload('u', 100_000));
    const result = await uploadFirmware(cli.baseUrl, image);
    expect(result.status).toBeLessThan(300);
    expect(await closesWithin(keepAlive, WITHIN_MS)).toBe(true);
    await backUp();
  });
});
