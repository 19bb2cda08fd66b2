/**
 * Issue 45: writes the storage cannot take get a clear answer. The fault plane's `storage` action
 * makes the store's writes fail as a full disk (ENOSPC) or a failing flash (EIO) would, without root:
 * 507 or 503 with a problem body naming the cause, reads served, the user data deletable on a full
 * disk, writes stored again once the rule ends (no restart), nothing acknowledged lost, and the state
 * in /metrics and in the log once per episode.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FaultPlane } from '../../src/faults/fault-plane.js';
import { FAST_TIMING } from '../../src/faults/index.js';
import { buildImage, generatedPayload } from '../../src/model/image-format.js';
import { uploadFirmware } from '../firmware/http-upload.js';
import { parseMetrics, sampleValue } from '../helpers/prometheus.js';
import { createTestSensor, removeDir, type TestSensor } from '../helpers/test-sensor.js';

let unit: TestSensor;
let plane: FaultPlane;
let lines: { msg: string; storage?: string }[];

const storageRule = (error: string, lifetime: object = {}) => ({
  selector: { plane: 'unit' },
  action: { type: 'storage', error },
  lifetime,
});
const json = { 'content-type': 'application/json' };
const putUserData = (value: string) =>
  unit.app.inject({
    method: 'PUT',
    url: '/api/v1/user/data?policy=keep_on_config_delete',
    payload: JSON.stringify(value),
    headers: json,
  });
const postConfig = (body: object) =>
  unit.app.inject({ method: 'POST', url: '/api/v1/sensor/config', payload: body, headers: json });
async function metric(name: string, cause: string): Promise<number> {
  const res = await unit.app.inject({ url: '/metrics' });
  return sampleValue(parseMetrics(res.body), name, { cause });
}

beforeEach(async () => {
  lines = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  unit = await createTestSensor({ unit: { logger: pino({ level: 'info' }, sink) } });
  plane = new FaultPlane(unit, { log: pino({ level: 'silent' }), timing: FAST_TIMING });
});

afterEach(async () => {
  plane.close();
  await unit.close();
  removeDir(unit.dataDir);
});

describe('the storage fault action', () => {
  it('ENOSPC: writes answer 507 naming the cause, reads are served, the user data can be deleted, writes work again without a restart', async () => {
    expect((await putUserData('kept before the disk filled')).statusCode).toBe(204);
    expect((await postConfig({ udp_port_lidar: 7501 })).statusCode).toBe(204);
    const { id } = plane.add(storageRule('ENOSPC'));

    const refused = await postConfig({ udp_port_lidar: 7502 });
    expect(refused.statusCode).toBe(507);
    expect(refused.json()).toMatchObject({
      type: 'urn:lidar-sensor:problem:insufficient-storage',
      title: 'Insufficient storage',
      status: 507,
    });
    expect(refused.json().detail).toMatch(/storage is full \(SQLITE_FULL\): the change was not stored/);
    const refusedPut = await putUserData('refused while full');
    expect(refusedPut.statusCode).toBe(507);
    expect(refusedPut.headers['content-type']).toBe('application/json');
    const asked = await unit.app.inject({
      method: 'PUT',
      url: '/api/v1/user/data',
      payload: '"x"',
      headers: { ...json, accept: 'application/problem+json' },
    });
    expect(asked.statusCode).toBe(507);
    expect(asked.headers['content-type']).toBe('application/problem+json');

    // Reads are served, and show that nothing refused was applied and nothing acknowledged lost.
    const config = await unit.app.inject({ url: '/api/v1/sensor/config' });
    expect(config.statusCode).toBe(200);
    expect(config.json().udp_port_lidar).toBe(7501);
    expect((await unit.app.inject({ url: '/api/v1/user/data' })).json()).toBe('kept before the disk filled');
    expect(await metric('lidar_sensor_storage_refusing_writes', 'full')).toBe(1);
    expect(await metric('lidar_sensor_storage_refused_writes_total', 'full')).toBe(3);
    // One log line for the episode, not one per refused request.
    expect(lines.filter((l) => l.msg.startsWith('storage refuses writes')).length).toBe(1);

    // Deleting the user data frees the unit even now.
    expect((await unit.app.inject({ method: 'DELETE', url: '/api/v1/user/data' })).statusCode).toBe(204);
    expect((await unit.app.inject({ url: '/api/v1/user/data' })).json()).toBe('');

    // Space is back: writes are stored again, without a restart.
    expect(plane.remove(id)).toBe(true);
    expect((await postConfig({ udp_port_lidar: 7503 })).statusCode).toBe(204);
    expect((await putUserData('after the disk had room again')).statusCode).toBe(204);
    expect(await metric('lidar_sensor_storage_refusing_writes', 'full')).toBe(0);
    expect(lines.filter((l) => l.msg === 'storage takes writes again').length).toBe(1);

    // What was acknowledged survives a power cycle; what was refused never appears.
    unit = await unit.reopen();
    plane = new FaultPlane(unit, { log: pino({ level: 'silent' }), timing: FAST_TIMING });
    expect((await unit.app.inject({ url: '/api/v1/sensor/config' })).json().udp_port_lidar).toBe(7503);
    expect((await unit.app.inject({ url: '/api/v1/user/data' })).json()).toBe('after the disk had room again');
  });

  it('EIO: writes answer 503 with the storage-io-error type and Retry-After, deletes too; reads are served', async () => {
    expect((await putUserData('before the flash failed')).statusCode).toBe(204);
    plane.add(storageRule('EIO', { duration_ms: 60_000 }));
    const refused = await postConfig({ udp_port_imu: 7600 });
    expect(refused.statusCode).toBe(503);
    expect(refused.headers['retry-after']).toBe('5');
    expect(refused.json()).toMatchObject({ type: 'urn:lidar-sensor:problem:storage-io-error', status: 503 });
    expect(refused.json().detail).toMatch(/I\/O error \(SQLITE_IOERR\)/);
    expect((await unit.app.inject({ method: 'DELETE', url: '/api/v1/user/data' })).statusCode).toBe(503);
    expect((await unit.app.inject({ url: '/api/v1/user/data' })).json()).toBe('before the flash failed');
    expect(await metric('lidar_sensor_storage_refusing_writes', 'io')).toBe(1);
  });

  it('a firmware upload is refused with 507 before a byte is written, and the running image is untouched', async () => {
    const base = await unit.app.listen({ host: '127.0.0.1', port: 0 });
    const before = (await unit.app.inject({ url: '/api/v1/system/firmware' })).json();
    plane.add(storageRule('ENOSPC'));
    const rev = 'ousteros-image-prod-bootes-v4.0.0+20250102030405';
    const result = await uploadFirmware(base, buildImage(rev, generatedPayload(rev, 100_000)));
    expect(result.status).toBe(507);
    expect(JSON.parse(result.body).type).toBe('urn:lidar-sensor:problem:insufficient-storage');
    expect((await unit.app.inject({ url: '/api/v1/system/firmware' })).json()).toEqual(before);
  });

  it('the rule takes only ENOSPC or EIO, and says so', () => {
    expect(() => plane.add(storageRule('EFULL'))).toThrow(/must be one of "ENOSPC", "EIO"; got "EFULL"/);
  });

  it('the OpenAPI document lists 507 for every writing operation and names the I/O type under 503', async () => {
    const doc = (await unit.app.inject({ url: '/api/v1/openapi.json' })).json();
    const put = doc.paths['/api/v1/user/data'].put.responses;
    expect(put['507'].description).toMatch(/full or read-only/);
    expect(put['503'].description).toMatch(/storage-io-error/);
    expect(doc.paths['/api/v1/user/data'].get.responses['507']).toBeUndefined();
  });
});

describe('storage errors as the disk and SQLite give them', () => {
  it('a read-only file system and a full one are 507, an I/O error is 503, other errors are not storage errors', async () => {
    const { storageCauseOf, storageProblem } = await import('../../src/model/errors.js');
    const cases: [string, string | undefined][] = [
      ['ENOSPC', 'full'],
      ['SQLITE_FULL', 'full'],
      ['EROFS', 'read-only'],
      ['SQLITE_READONLY', 'read-only'],
      ['SQLITE_READONLY_DBMOVED', 'read-only'],
      ['EIO', 'io'],
      ['SQLITE_IOERR_FSYNC', 'io'],
      ['SQLITE_CONSTRAINT', undefined],
      ['ECONNRESET', undefined],
    ];
    for (const [code, cause] of cases) expect(storageCauseOf({ code }), code).toBe(cause);
    expect(storageProblem('read-only', 'EROFS').status).toBe(507);
    expect(storageProblem('read-only', 'EROFS').detail).toMatch(/read-only \(EROFS/);
    expect(storageProblem('io', 'EIO').status).toBe(503);
  });
});
