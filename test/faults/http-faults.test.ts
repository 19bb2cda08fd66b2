/**
 * HTTP fault actions on a listening sensor API: what a client sees (status, headers, problem+json,
 * a closed connection, a short body), only on the selected route and method, for the rule's lifetime.
 */
import http from 'node:http';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/routes/app.js';
import { buildControlApp } from '../../src/faults/control-server.js';
import { FaultPlane } from '../../src/faults/fault-plane.js';
import { FAST_TIMING } from '../../src/faults/index.js';
import { createTestSensor, removeDir, type TestSensor } from '../helpers/test-sensor.js';
import { waitFor } from '../helpers/poll.js';

let unit: TestSensor;
let plane: FaultPlane;
let app: FastifyInstance;
let base: string;

beforeAll(async () => {
  unit = await createTestSensor({ product: 'OS-1-32' });
  plane = new FaultPlane(unit, { log: pino({ level: 'silent' }), timing: FAST_TIMING });
  app = await buildApp(unit.sensor, { faults: plane });
  base = await app.listen({ host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  plane.close();
  await app.close();
  await unit.close();
  removeDir(unit.dataDir);
});

const METADATA = '/api/v1/sensor/metadata';
const http503 = {
  selector: { plane: 'http', path: '/api/v1/sensor/metadata*', method: 'GET' },
  action: { type: 'status', status: 503, retry_after_s: 7 },
};

/** A raw GET that reports what arrived, whether the body was complete, and socket errors. */
function rawGet(
  path: string,
): Promise<{ status?: number; headers?: http.IncomingHttpHeaders; body: Buffer; error?: string }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const req = http.get(`${base}${path}`, (res) => {
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', (err) =>
        resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks), error: err.message }),
      );
      res.on('aborted', () =>
        resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks), error: 'aborted' }),
      );
    });
    req.on('error', (err) =>
      resolve({ body: Buffer.concat(chunks), error: (err as NodeJS.ErrnoException).code ?? err.message }),
    );
  });
}

describe('HTTP fault rules', () => {
  it('a 503 with Retry-After, problem+json, on the selected route only, for `count` requests', async () => {
    const { id } = plane.add({ ...http503, lifetime: { count: 2 } });
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${base}${METADATA}/sensor_info`);
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('7');
      expect(res.headers.get('content-type')).toMatch(/^application\/json/); // problem body; problem+json only on Accept
      expect(((await res.json()) as { status: number }).status).toBe(503);
    }
    expect((await fetch(`${base}${METADATA}/sensor_info`)).status).toBe(200);
    expect(plane.get(id)).toMatchObject({ applied: 2, reason: 'count reached' });
  });

  it('other routes and methods are untouched while a rule holds', async () => {
    const { id } = plane.add(http503);
    expect((await fetch(`${base}/api/v1/sensor/config`)).status).toBe(200);
    expect((await fetch(`${base}${METADATA}`, { method: 'HEAD' })).status).not.toBe(503);
    expect((await fetch(`${base}${METADATA}`)).status).toBe(503);
    expect(plane.remove(id)).toBe(true);
    expect((await fetch(`${base}${METADATA}`)).status).toBe(200);
  });

  it('a 500 as problem+json', async () => {
    plane.add({
      selector: { plane: 'http', path: '/api/v1/sensor/config', method: 'get' },
      action: { type: 'status', status: 500 },
      lifetime: { count: 1 },
    });
    const res = await fetch(`${base}/api/v1/sensor/config`);
    expect(res.status).toBe(500);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/injected/);
  });

  it('added latency delays the answer by at least the given time', async () => {
    plane.add({
      selector: { plane: 'http', path: '/api/v1/time/system' },
      action: { type: 'latency', ms: 150 },
      lifetime: { count: 1 },
    });
    const started = performance.now();
    expect((await fetch(`${base}/api/v1/time/system`)).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(145);
  });

  it('a closed connection: the client gets no answer', async () => {
    plane.add({
      selector: { plane: 'http', path: '/api/v1/sensor/telemetry' },
      action: { type: 'close' },
      lifetime: { count: 1 },
    });
    const res = await rawGet('/api/v1/sensor/telemetry');
    expect(res.status).toBeUndefined();
    expect(res.error).toMatch(/ECONNRESET|socket hang up/);
    expect((await rawGet('/api/v1/sensor/telemetry')).status).toBe(200);
  });

  it('a truncated body: Content-Length announces more than arrives', async () => {
    plane.add({
      selector: { plane: 'http', path: `${METADATA}/sensor_info` },
      action: { type: 'truncate', bytes: 10 },
      lifetime: { count: 1 },
    });
    const res = await rawGet(`${METADATA}/sensor_info`);
    expect(res.status).toBe(200);
    expect(Number(res.headers?.['content-length'])).toBeGreaterThan(10);
    expect(res.body.length).toBe(10);
    expect(res.error).toBeDefined();
    const whole = await rawGet(`${METADATA}/sensor_info`);
    expect(whole.body.length).toBe(Number(whole.headers?.['content-length']));
  });

  it('a truncate rule counts as applied only the answers it cut, not a streamed one it let through whole', async () => {
    const { id } = plane.add({
      selector: { plane: 'http', path: '/api/v1/diagnostics/dump' },
      action: { type: 'truncate', bytes: 10 },
    });
    const dump = await rawGet('/api/v1/diagnostics/dump');
    expect(dump.status).toBe(200);
    expect(dump.error).toBeUndefined();
    expect(dump.body.length).toBeGreaterThan(10);
    expect(plane.get(id)).toMatchObject({ seen: 1, applied: 0 });
    plane.remove(id);
    const cut = plane.add({
      selector: { plane: 'http', path: `${METADATA}/sensor_info` },
      action: { type: 'truncate', bytes: 10 },
      lifetime: { count: 1 },
    });
    expect((await rawGet(`${METADATA}/sensor_info`)).body.length).toBe(10);
    expect(plane.get(cut.id)).toMatchObject({ seen: 1, applied: 1, reason: 'count reached' });
  });

  it('a rule with a duration ends by itself', async () => {
    const { id } = plane.add({ ...http503, lifetime: { duration_ms: 100 } });
    expect((await fetch(`${base}${METADATA}`)).status).toBe(503);
    await waitFor(() => !plane.list().rules.some((r) => r.id === id), 5000, 'the rule to end');
    expect(plane.get(id)).toMatchObject({ reason: 'duration elapsed' });
    expect((await fetch(`${base}${METADATA}`)).status).toBe(200);
  });
});

describe('the control API', () => {
  it('answers problem+json for bad bodies and unknown rules, and lists, gets and removes rules', async () => {
    const control = await buildControlApp(plane);
    try {
      const json = { 'content-type': 'application/json' };
      const badJson = await control.inject({ method: 'POST', url: '/faults', headers: json, payload: '{' });
      expect(badJson.statusCode).toBe(400);
      expect(badJson.headers['content-type']).toMatch(/^application\/json/); // problem body; problem+json only on Accept
      expect((await control.inject({ method: 'DELETE', url: '/faults/f999' })).statusCode).toBe(404);
      expect((await control.inject({ url: '/faults/f999' })).statusCode).toBe(404);
      expect((await control.inject({ method: 'PUT', url: '/faults' })).statusCode).toBe(405);
      const added = await control.inject({ method: 'POST', url: '/faults', payload: { ...http503 } });
      expect(added.statusCode).toBe(201);
      const { id } = added.json() as { id: string };
      expect((await control.inject({ url: `/faults/${id}` })).json()).toMatchObject({ id, applied: 0 });
      expect((await control.inject({ url: '/faults' })).json().rules.map((r: { id: string }) => r.id)).toEqual([id]);
      expect((await control.inject({ method: 'DELETE', url: `/faults/${id}` })).statusCode).toBe(204);
      expect((await control.inject({ url: `/faults/${id}` })).json()).toMatchObject({ id, reason: 'removed' });
      plane.add(http503);
      plane.add(http503);
      expect((await control.inject({ method: 'DELETE', url: '/faults' })).json()).toEqual({ removed: 2 });
    } finally {
      await control.close();
    }
  });

  it("the control listener's answers carry every field of the plane's views, in their order (control-schemas.ts)", async () => {
    const control = await buildControlApp(plane);
    try {
      const kept = plane.add({ ...http503, lifetime: { duration_ms: 60_000 } });
      const ended = plane.add(http503);
      plane.remove(ended.id);
      expect((await control.inject({ url: `/faults/${kept.id}` })).body).toBe(JSON.stringify(plane.get(kept.id)));
      expect((await control.inject({ url: `/faults/${ended.id}` })).body).toBe(JSON.stringify(plane.get(ended.id)));
      expect((await control.inject({ url: '/faults' })).body).toBe(JSON.stringify(plane.list()));
      plane.clear();
    } finally {
      await control.close();
    }
  });
});
