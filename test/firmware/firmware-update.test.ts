/**
 * Firmware update end to end through the listening HTTP server: upload with Expect: 100-continue,
 * reboot into the new slot, commit_pending true then false, the new fw everywhere; the rollback of
 * an image that never boots healthy; and bad uploads refused with nothing changed.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildImage, generatedPayload } from '../../src/model/image-format.js';
import { FIRMWARE_ROLLBACK_ALERT } from '../../src/core/firmware/firmware-boot.js';
import { createSimFirmware } from '../../src/hal/sim/firmware-sim.js';
import type { SensorStatus } from '../../src/core/status.js';
import { createTestSensor, removeDir, type TestSensor } from '../helpers/test-sensor.js';
import { gatedFirmware, type GatedFirmware } from './gated-firmware.js';
import { uploadFirmware } from './http-upload.js';
import { slotFilesDigest } from './slot-files-digest.js';
import { waitFor } from '../helpers/poll.js';

const FACTORY_REV = 'ousteros-image-prod-bootes-v3.1.0+20240426041747';
const NEW_REV = 'ousteros-image-prod-bootes-v3.2.0+20250101120000';
const MAX_ATTEMPTS = 2;

interface Unit {
  t: TestSensor;
  fw: GatedFirmware;
  baseUrl: string;
  statuses: SensorStatus[];
}

const units: Unit[] = [];
afterEach(async () => {
  for (const u of units.splice(0)) {
    u.fw.release();
    await u.t.close();
    removeDir(u.t.dataDir);
  }
});

async function startUnit(): Promise<Unit> {
  let fw: GatedFirmware | undefined;
  const t = await createTestSensor({
    hal: (defaults) => {
      const dataDir = join(defaults.firmware.slotDirectory, '..');
      fw = gatedFirmware(createSimFirmware({ dataDir, updateMs: 0, maxBootAttempts: MAX_ATTEMPTS }));
      return { ...defaults, firmware: fw };
    },
  });
  const baseUrl = await t.app.listen({ host: '127.0.0.1', port: 0 });
  const statuses: SensorStatus[] = [];
  t.sensor.events.on('status', (s) => statuses.push(s));
  const unit = { t, fw: fw!, baseUrl, statuses };
  units.push(unit);
  return unit;
}

// `any`: the bodies are JSON of several shapes, each asserted on field by field below.
async function getJson(baseUrl: string, path: string): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(baseUrl + path);
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

/** Everything that must not change when an upload is refused. */
function snapshot(u: Unit) {
  const files = slotFilesDigest(u.t.hal.firmware.slotDirectory);
  return {
    files,
    state: structuredClone(u.t.sensor.firmware.slotState),
    status: u.t.sensor.firmware.status,
    initId: u.t.sensor.run.initializationId,
  };
}

describe('firmware update over HTTP', () => {
  it('uploads with 100-continue, reboots into the new image, and commits it once healthy', async () => {
    const u = await startUnit();
    expect((await getJson(u.baseUrl, '/api/v1/system/firmware')).body).toEqual({
      commit_pending: false,
      fw: FACTORY_REV,
    });
    expect((await getJson(u.baseUrl, '/api/v1/sensor/metadata/sensor_info')).body.image_rev).toBe(FACTORY_REV);
    const initBefore = u.t.sensor.run.initializationId;

    u.fw.holdTrials();
    const result = await uploadFirmware(u.baseUrl, buildImage(NEW_REV, generatedPayload('new', 300_000)));
    expect(result).toMatchObject({ status: 204, continued: true });

    // While the new image's first boot is held: it runs on trial, UPDATING, not yet committed.
    const pending = await waitFor(
      async () => {
        const r = await getJson(u.baseUrl, '/api/v1/system/firmware');
        return r.status === 200 && r.body.fw === NEW_REV ? r.body : undefined;
      },
      10_000,
      'the unit to boot the new image',
    );
    expect(pending).toEqual({ commit_pending: true, fw: NEW_REV });
    const info = (await getJson(u.baseUrl, '/api/v1/sensor/metadata/sensor_info')).body;
    expect(info).toMatchObject({
      image_rev: NEW_REV,
      build_rev: 'v3.2.0',
      build_date: '2025-01-01T12:00:00Z',
      status: 'UPDATING',
    });

    u.fw.release();
    // What a client does: poll until commit_pending is false.
    const committed = await waitFor(
      async () => {
        const r = await getJson(u.baseUrl, '/api/v1/system/firmware');
        return r.status === 200 && r.body.commit_pending === false ? r.body : undefined;
      },
      10_000,
      'commit_pending to become false',
    );
    expect(committed).toEqual({ commit_pending: false, fw: NEW_REV });
    const after = (await getJson(u.baseUrl, '/api/v1/sensor/metadata/sensor_info')).body;
    expect(after).toMatchObject({ image_rev: NEW_REV, status: 'RUNNING' });
    expect(after.initialization_id).not.toBe(initBefore);
    expect(u.statuses).toEqual(expect.arrayContaining(['UPDATING', 'INITIALIZING', 'RUNNING']));
    expect(u.statuses.indexOf('UPDATING')).toBeLessThan(u.statuses.lastIndexOf('INITIALIZING'));
    expect(u.statuses.at(-1)).toBe('RUNNING');
    expect(u.fw.boots.map((b) => b.kind)).toEqual(['normal', 'trial']);
    expect(u.t.sensor.firmware.slotState).toMatchObject({ primary: 'b', trial: null, bootAttempts: 0 });

    // A power cycle keeps the committed image.
    const reopened = await u.t.reopen();
    units[0].t = reopened;
    expect(reopened.sensor.firmware.status).toEqual({ commit_pending: false, fw: NEW_REV });
  });

  it('refuses a second upload while an update waits to be committed', async () => {
    const u = await startUnit();
    u.fw.holdTrials();
    expect((await uploadFirmware(u.baseUrl, buildImage(NEW_REV, generatedPayload('a', 1000)))).status).toBe(204);
    await waitFor(
      async () => (await getJson(u.baseUrl, '/api/v1/system/firmware')).body?.fw === NEW_REV,
      10_000,
      'trial boot',
    );
    const second = await uploadFirmware(
      u.baseUrl,
      buildImage('ousteros-image-prod-bootes-v3.3.0+20250101120000', generatedPayload('b', 1000)),
    );
    expect(second).toMatchObject({ status: 409, continued: false });
    expect(JSON.parse(second.body).detail).toMatch(/commit_pending/);
  });

  it('rolls back to the previous image when the new one never boots healthy, and raises an alert', async () => {
    const u = await startUnit();
    const result = await uploadFirmware(
      u.baseUrl,
      buildImage(NEW_REV, generatedPayload('bad', 5000), { 'sim.boot': 'fail' }),
    );
    expect(result).toMatchObject({ status: 204, continued: true });
    const firmware = await waitFor(
      async () => {
        const r = await getJson(u.baseUrl, '/api/v1/system/firmware');
        return r.status === 200 && r.body.commit_pending === false && u.fw.boots.length > 1 ? r.body : undefined;
      },
      15_000,
      'the update to be resolved',
    );
    expect(firmware).toEqual({ commit_pending: false, fw: FACTORY_REV });
    expect(u.fw.boots).toEqual([
      { imageRev: FACTORY_REV, kind: 'normal' },
      ...Array.from({ length: MAX_ATTEMPTS }, () => ({ imageRev: NEW_REV, kind: 'trial' })),
      { imageRev: FACTORY_REV, kind: 'rollback' },
    ]);
    await waitFor(
      async () => (await getJson(u.baseUrl, '/api/v1/sensor/metadata/sensor_info')).body?.status === 'RUNNING',
      10_000,
      'RUNNING',
    );
    expect((await getJson(u.baseUrl, '/api/v1/sensor/metadata/sensor_info')).body.image_rev).toBe(FACTORY_REV);
    const alerts = (await getJson(u.baseUrl, '/api/v1/sensor/alerts')).body;
    const rollback = alerts.active.find((a: { id: string }) => a.id === FIRMWARE_ROLLBACK_ALERT);
    expect(rollback).toBeDefined();
    expect(rollback.msg_verbose).toContain(NEW_REV);
    expect(u.t.sensor.firmware.slotState).toMatchObject({ primary: 'a', trial: null });

    // A later good update commits and ends the alert.
    expect((await uploadFirmware(u.baseUrl, buildImage(NEW_REV, generatedPayload('good', 5000)))).status).toBe(204);
    await waitFor(
      async () => {
        const r = await getJson(u.baseUrl, '/api/v1/system/firmware');
        return r.status === 200 && r.body.fw === NEW_REV && !r.body.commit_pending;
      },
      15_000,
      'the good update to commit',
    );
    const later = (await getJson(u.baseUrl, '/api/v1/sensor/alerts')).body;
    expect(later.active.find((a: { id: string }) => a.id === FIRMWARE_ROLLBACK_ALERT)).toBeUndefined();
  });

  it('refuses bad uploads with a problem and changes nothing', async () => {
    const u = await startUnit();
    const before = snapshot(u);
    const good = buildImage(NEW_REV, generatedPayload('x', 100_000));
    const corrupt = Buffer.from(good);
    corrupt[corrupt.length - 7] ^= 0x40;
    const foreign = Buffer.concat([Buffer.from('\x7fELF'), generatedPayload('elf', 50_000)]);
    const cases: {
      name: string;
      image: Buffer;
      headers?: Record<string, string>;
      status: number;
      continued: boolean;
      detail: RegExp;
    }[] = [
      {
        name: 'truncated',
        image: good.subarray(0, good.length - 1000),
        status: 400,
        continued: true,
        detail: /truncated/,
      },
      { name: 'corrupt', image: corrupt, status: 400, continued: true, detail: /corrupt/ },
      { name: 'foreign', image: foreign, status: 400, continued: true, detail: /not a firmware image/ },
      { name: 'empty', image: Buffer.alloc(0), status: 400, continued: true, detail: /empty/ },
      {
        name: 'wrong type',
        image: good,
        headers: { 'content-type': 'application/json' },
        status: 415,
        continued: false,
        detail: /application\/octet-stream/,
      },
      {
        name: 'no type',
        image: good,
        headers: { 'content-type': '' },
        status: 415,
        continued: false,
        detail: /octet-stream/,
      },
      {
        name: 'too large',
        image: Buffer.alloc(16),
        headers: { 'content-length': String(u.t.sensor.firmware.maxImageBytes + 1) },
        status: 413,
        continued: false,
        detail: /at most/,
      },
    ];
    for (const c of cases) {
      const result = await uploadFirmware(u.baseUrl, c.image, c.headers);
      expect({ name: c.name, status: result.status, continued: result.continued }).toEqual({
        name: c.name,
        status: c.status,
        continued: c.continued,
      });
      expect(result.headers['content-type']).toBe('application/json');
      expect(JSON.parse(result.body).detail, c.name).toMatch(c.detail);
      if (!c.continued) expect(result.headers.connection, c.name).toBe('close');
    }
    expect(snapshot(u)).toEqual(before);
    expect(u.t.sensor.power.rebooting).toBe(false);
  });
});

describe('Expect: 100-continue elsewhere', () => {
  it('still answers 100 at once on other routes', async () => {
    const u = await startUnit();
    const { request } = await import('node:http');
    const body = JSON.stringify('hello');
    const result = await new Promise<{ status: number; continued: boolean }>((resolve, reject) => {
      const req = request(`${u.baseUrl}/api/v1/user/data`, {
        method: 'PUT',
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': String(body.length), expect: '100-continue' },
      });
      let continued = false;
      req.on('continue', () => {
        continued = true;
        req.end(body);
      });
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, continued }));
      });
      req.on('error', reject);
      req.flushHeaders();
    });
    expect(result).toEqual({ status: 204, continued: true });
    expect((await getJson(u.baseUrl, '/api/v1/user/data')).body).toBe('hello');
  });
});
