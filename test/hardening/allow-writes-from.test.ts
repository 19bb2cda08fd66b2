/**
 * `--allow-writes-from`: every operation that can change the unit (each one the OpenAPI document
 * lists with a 403: POST/PUT/DELETE, the legacy cmd/ setters, firmware upload, restart) is refused
 * with 403 from a peer outside the allowed networks, and nothing changes; reads stay open; allowed
 * peers and units without the option change the unit as before. Peers are loopback addresses
 * (127.0.0.2 outside, 127.0.0.1 inside) chosen by binding the client socket.
 */
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { parseAddressList } from '../../src/model/address-list.js';
import { buildImage, generatedPayload } from '../../src/model/image-format.js';
import { createTestSensor, removeDir, type TestSensor } from '../helpers/test-sensor.js';

const INSIDE = '127.0.0.1';
const OUTSIDE = '127.0.0.2';
const IMAGE = buildImage('ousteros-image-prod-bootes-v3.2.0+20250101120000', generatedPayload('w', 10_000));

interface Answer {
  status: number;
  body: string;
  type: string | undefined;
}

/** One request from `from` (the client socket's local address), with Expect: 100-continue for a body. */
function send(
  baseUrl: string,
  from: string,
  method: string,
  path: string,
  body?: { type: string; bytes: Buffer },
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${baseUrl}${path}`, {
      method,
      localAddress: from,
      agent: false,
      headers: body
        ? { 'content-type': body.type, 'content-length': String(body.bytes.length), expect: '100-continue' }
        : {},
    });
    req.on('continue', () => req.end(body?.bytes));
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body: text, type: res.headers['content-type'] });
        req.destroy();
      });
    });
    req.on('error', reject);
    if (body) req.flushHeaders();
    else req.end();
  });
}

const json = (value: unknown) => ({ type: 'application/json', bytes: Buffer.from(JSON.stringify(value)) });

/** A request that would change the unit, for each operation the document says can be refused 403. */
function writeRequest(method: string, path: string): { path: string; body?: { type: string; bytes: Buffer } } {
  const filled = path.replace('{name}', 'lidar_mode');
  if (filled === '/api/v1/system/firmware')
    return { path: filled, body: { type: 'application/octet-stream', bytes: IMAGE } };
  if (filled.endsWith('/cmd/set_config_param')) return { path: `${filled}?args=lidar_mode+512x10` };
  if (filled.includes('/cmd/') || method === 'delete') return { path: filled };
  if (filled === '/api/v1/sensor/config') return { path: filled, body: json({ lidar_mode: '512x10' }) };
  if (filled === '/api/v1/sensor/config/lidar_mode') return { path: filled, body: json('512x10') };
  if (filled === '/api/v1/time/ptp/profile') return { path: filled, body: json('gptp') };
  if (filled.startsWith('/api/v1/system/network')) return { path: filled, body: json('192.0.2.10/24') };
  if (filled === '/api/v1/user/data') return { path: filled, body: json('changed from outside') };
  return { path: filled, body: json({}) };
}

const units: TestSensor[] = [];
afterEach(async () => {
  for (const t of units.splice(0)) {
    await t.close();
    removeDir(t.dataDir);
  }
});

async function startUnit(allow?: string): Promise<{ t: TestSensor; baseUrl: string }> {
  const t = await createTestSensor({ unit: { allowWritesFrom: allow ? parseAddressList(allow) : undefined } });
  units.push(t);
  return { t, baseUrl: await t.app.listen({ host: INSIDE, port: 0 }) };
}

/** Everything a refused write must leave as it was. */
function state(t: TestSensor) {
  const s = t.sensor;
  return {
    active: s.configs.reported('active'),
    staged: s.configs.reported('staged'),
    persisted: s.configs.reported('persisted'),
    firmware: structuredClone(s.firmware.slotState),
    initId: s.run.initializationId,
    status: s.run.status,
    network: s.network.network(),
    time: s.time.all(),
    rebooting: s.power.rebooting,
  };
}

describe('--allow-writes-from', () => {
  it('refuses every operation that can change the unit from outside with 403, and nothing changes', async () => {
    const { t, baseUrl } = await startUnit(`${INSIDE}/32, 10.0.0.0/8`);
    expect((await send(baseUrl, INSIDE, 'PUT', '/api/v1/user/data', json('kept'))).status).toBe(204);
    const document = JSON.parse((await send(baseUrl, OUTSIDE, 'GET', '/api/v1/openapi.json')).body);
    const guarded: [string, string][] = [];
    for (const [path, operations] of Object.entries(document.paths as Record<string, Record<string, any>>))
      for (const [method, operation] of Object.entries(operations))
        if (operation.responses?.['403']) guarded.push([method, path]);
    const operationIds = guarded.map(([method, path]) => document.paths[path][method].operationId);
    // Every kind of write is in the document as refusable: resources, legacy setters, firmware, restart.
    expect(operationIds).toEqual(
      expect.arrayContaining([
        'uploadFirmware',
        'restart',
        'legacyReboot',
        'legacySetConfigParam',
        'legacySetUdpDestAuto',
        'legacyReinitialize',
        'legacySaveConfigParams',
      ]),
    );
    for (const [method, path] of Object.entries(document.paths as Record<string, Record<string, unknown>>).flatMap(
      ([path, ops]) => Object.keys(ops).map((m) => [m, path] as const),
    )) {
      // HEAD runs the GET handler: it is a write exactly where the GET is one (the legacy setters).
      const isRead = method === 'get' || method === 'head';
      const isWrite = !isRead || (path.includes('/cmd/') && !path.endsWith('get_config_param'));
      expect({ method, path, guarded: guarded.some(([m, p]) => m === method && p === path) }).toEqual({
        method,
        path,
        guarded: isWrite,
      });
    }

    const before = state(t);
    for (const [method, path] of guarded) {
      const write = writeRequest(method, path);
      const answer = await send(baseUrl, OUTSIDE, method.toUpperCase(), write.path, write.body);
      expect({ method, path, status: answer.status }).toEqual({ method, path, status: 403 });
      expect(answer.type).toBe('application/json');
      if (method === 'head') continue; // a HEAD answer has the GET's status and headers, and no body
      expect(JSON.parse(answer.body)).toMatchObject({
        type: 'urn:lidar-sensor:problem:forbidden',
        status: 403,
        detail: expect.stringContaining(`${OUTSIDE} may not change this unit`),
      });
    }
    expect(state(t)).toEqual(before);
    expect(JSON.parse((await send(baseUrl, OUTSIDE, 'GET', '/api/v1/user/data')).body)).toBe('kept');

    // Reads stay open from anywhere.
    for (const path of [
      '/api/v1/sensor/config',
      '/api/v1/sensor/metadata/sensor_info',
      '/api/v1/system/firmware',
      '/api/v1/sensor/cmd/get_config_param?args=active',
      '/api/v1/time',
    ])
      expect({ path, status: (await send(baseUrl, OUTSIDE, 'GET', path)).status }).toEqual({ path, status: 200 });

    // An allowed peer changes the unit as before.
    expect((await send(baseUrl, INSIDE, 'POST', '/api/v1/sensor/config', json({ lidar_mode: '512x10' }))).status).toBe(
      204,
    );
    expect(t.sensor.configs.reported('active')).toMatchObject({ lidar_mode: '512x10' });
  });

  it('lets everyone change the unit when not given (the default)', async () => {
    const { t, baseUrl } = await startUnit();
    expect((await send(baseUrl, OUTSIDE, 'PUT', '/api/v1/user/data', json('from anywhere'))).status).toBe(204);
    expect(
      (await send(baseUrl, OUTSIDE, 'GET', '/api/v1/sensor/cmd/set_config_param?args=lidar_mode+512x10')).status,
    ).toBe(200);
    expect(t.sensor.configs.reported('staged')).toMatchObject({ lidar_mode: '512x10' });
  });

  it('reads CIDR lists and refuses malformed ones', () => {
    const list = parseAddressList('10.0.0.0/8, 192.168.1.7 ,fd00::/8');
    expect(list.text).toBe('10.0.0.0/8, 192.168.1.7/32, fd00::/8');
    expect(['10.1.2.3', '::ffff:10.1.2.3', '192.168.1.7', 'fd12::1'].map((a) => list.includes(a))).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(['11.0.0.1', '192.168.1.8', 'fe80::1', '127.0.0.1', undefined].map((a) => list.includes(a))).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
    for (const bad of ['', '10.0.0.0/33', '10.0.0/8', 'example.com', '10.0.0.0/8/1', 'fd00::/129', '10.0.0.0/-1'])
      expect(() => parseAddressList(bad), bad).toThrow();
  });
});
