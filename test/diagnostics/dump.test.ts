/** GET /api/v1/diagnostics/dump: headers, chunked streaming, an archive that opens, no secrets. */
import { afterEach, describe, expect, it } from 'vitest';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import pino from 'pino';
import type { AddressInfo } from 'node:net';
import { buildApp } from '../../src/routes/app.js';
import { LogRing } from '../../src/core/diagnostics/log-ring.js';
import { createTestSensor, removeDir, type TestSensor } from '../helpers/test-sensor.js';
import { readTarGz } from './archive-reader.js';

const SERIAL = '122201000123';
const EXPECTED_FILES = [
  'manifest.json',
  'metadata.json',
  'config/active.json',
  'config/staged.json',
  'config/persisted.json',
  'alerts.json',
  'telemetry.json',
  'time.json',
  'network.json',
  'firmware.json',
];

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function unit(): Promise<TestSensor> {
  const u = await createTestSensor({ serial: SERIAL });
  cleanups.push(async () => {
    await u.close();
    removeDir(u.dataDir);
  });
  return u;
}

describe('GET /api/v1/diagnostics/dump', () => {
  it('answers an octet-stream attachment named after the serial number and the time', async () => {
    const u = await unit();
    const before = new Date();
    const response = await u.app.inject('/api/v1/diagnostics/dump');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/octet-stream');
    const disposition = String(response.headers['content-disposition']);
    const match = /^attachment; filename="diagnostics-122201000123-(\d{8}T\d{6}Z)\.tar\.gz"$/.exec(disposition);
    expect(match, disposition).not.toBeNull();
    const stamp = match![1];
    const at = new Date(
      `${stamp.slice(0, 4)}-${stamp.slice(4, 6)}-${stamp.slice(6, 8)}T${stamp.slice(9, 11)}:${stamp.slice(11, 13)}:${stamp.slice(13, 15)}Z`,
    );
    expect(at.getTime()).toBeGreaterThanOrEqual(Math.floor(before.getTime() / 1000) * 1000);
    // gzip magic
    expect([...response.rawPayload.subarray(0, 2)]).toEqual([0x1f, 0x8b]);
  });

  it('holds JSON snapshots of metadata, configuration, alerts, telemetry, time and network', async () => {
    const u = await unit();
    u.sensor.alerts.raise('0x01000015', { host: '192.0.2.9', port: 7502 });
    // Stage a change without applying it, so staged and active differ.
    const staged = await u.app.inject({
      method: 'POST',
      url: '/api/v1/sensor/config?reinit=false&persist=false',
      payload: { lidar_mode: '2048x10' },
    });
    expect(staged.statusCode).toBe(204);

    const files = await readTarGz((await u.app.inject('/api/v1/diagnostics/dump')).rawPayload);
    expect([...files.keys()]).toEqual(EXPECTED_FILES);
    const json = (name: string) => JSON.parse(files.get(name)!) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test reads arbitrary snapshots

    expect(json('manifest.json')).toMatchObject({
      prod_sn: SERIAL,
      product: 'OS-1-128',
      hal: 'sim',
      status: 'RUNNING',
      files: EXPECTED_FILES,
    });
    expect(json('metadata.json').sensor_info.prod_sn).toBe(SERIAL);
    expect(json('metadata.json').lidar_data_format.columns_per_frame).toBe(1024);
    const activeConfig = (await u.app.inject('/api/v1/sensor/config')).json();
    expect(json('config/active.json')).toEqual(activeConfig);
    expect(json('config/persisted.json')).toEqual(activeConfig);
    expect(json('config/staged.json').lidar_mode).toBe('2048x10');
    expect(json('alerts.json')).toMatchObject({
      next_cursor: 1,
      active: [{ id: '0x01000015', cursor: 0 }],
      alert_flags: 0x81,
    });
    expect(json('telemetry.json')).toMatchObject({ phase_lock_status: 'DISABLED' });
    expect(json('telemetry.json').input_voltage_mv).toBeGreaterThan(20_000);
    expect(Object.keys(json('time.json')).sort()).toEqual(['ptp', 'sensor', 'system']);
    expect(json('time.json').sensor.timestamp.mode).toBe('TIME_FROM_INTERNAL_OSC');
    const network = (await u.app.inject('/api/v1/system/network')).json() as Record<string, unknown>;
    expect(json('network.json')).toEqual(network);
    expect(json('firmware.json')).toEqual({
      ...(await u.app.inject('/api/v1/system/firmware')).json(),
      signatures_required: false,
      trusted_keys: [],
      min_version: null,
    });
  });

  it('is sent chunked, without Content-Length, over a real connection', async () => {
    const u = await unit();
    await u.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = u.app.server.address() as AddressInfo;
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      httpRequest({ host: '127.0.0.1', port, path: '/api/v1/diagnostics/dump' }, resolve).on('error', reject).end();
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['transfer-encoding']).toBe('chunked');
    expect(response.headers['content-length']).toBeUndefined();
    expect(response.headers['content-disposition']).toMatch(
      /^attachment; filename="diagnostics-122201000123-.+\.tar\.gz"$/,
    );
    const chunks: Buffer[] = [];
    for await (const chunk of response) chunks.push(chunk as Buffer);
    const files = await readTarGz(Buffer.concat(chunks));
    expect(files.has('alerts.json')).toBe(true);
  });

  it('includes the recent log lines with secrets redacted, and never the user data', async () => {
    const u = await unit();
    const recentLog = new LogRing({ maxLines: 50 });
    const logger = pino({ level: 'info' }, pino.multistream([{ level: 'info', stream: recentLog }]));
    logger.info({ component: 'test' }, 'a line support wants to see');
    logger.warn(
      { password: 'hunter2', nested: { api_key: 'AKIA-SECRET', authorization: 'Bearer abc.def' } },
      'a line with credentials',
    );
    const put = await u.app.inject({
      method: 'PUT',
      url: '/api/v1/user/data',
      payload: '"my-wifi-passphrase-xyzzy"',
      headers: { 'content-type': 'application/json' },
    });
    expect(put.statusCode).toBe(204);

    const app = await buildApp(u.sensor, { recentLog });
    cleanups.push(() => app.close());
    const bytes = (await app.inject('/api/v1/diagnostics/dump')).rawPayload;
    const files = await readTarGz(bytes);
    const lines = files
      .get('log/recent.jsonl')!
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l.msg)).toEqual(['a line support wants to see', 'a line with credentials']);
    expect(lines[1]).toMatchObject({
      password: '[redacted]',
      nested: { api_key: '[redacted]', authorization: '[redacted]' },
    });
    const everything = [...files.values()].join('\n');
    for (const secret of ['hunter2', 'AKIA-SECRET', 'Bearer abc.def', 'xyzzy'])
      expect(everything).not.toContain(secret);
  });

  it('survives a client that goes away mid-download', async () => {
    const u = await unit();
    const recentLog = new LogRing({ maxLines: 5000, maxBytes: 4 * 1024 * 1024 });
    // Incompressible lines, so the archive is far larger than socket buffers.
    for (let i = 0; i < 3000; i++)
      recentLog.write(`${JSON.stringify({ i, noise: Math.random().toString(36).repeat(20) })}\n`);
    const app = await buildApp(u.sensor, { recentLog });
    cleanups.push(() => app.close());
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as AddressInfo;
    await new Promise<void>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, path: '/api/v1/diagnostics/dump' }, (response) => {
        response.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' ? resolve() : reject(error)));
      req.end();
    });
    const after = await app.inject('/api/v1/diagnostics/dump');
    expect(after.statusCode).toBe(200);
    const files = await readTarGz(after.rawPayload);
    expect(files.get('log/recent.jsonl')!.trim().split('\n')).toHaveLength(3000);
  });
});
