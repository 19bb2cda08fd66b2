/**
 * Unit-state fault actions, observed through the sensor API: alerts in the log (trigger and clear
 * entries), telemetry that drives the existing thresholds, link, PTP, sync pulses, phase lock,
 * reinit duration (INITIALIZING, metadata 503, no packets) and firmware failures.
 */
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALERT_IDS } from '../../src/model/alert-catalogue.js';
import { FaultPlane } from '../../src/faults/fault-plane.js';
import { FAST_TIMING } from '../../src/faults/index.js';
import { buildImage, generatedPayload } from '../../src/model/image-format.js';
import { createSimFirmware } from '../../src/hal/sim/firmware-sim.js';
import { uploadFirmware } from '../firmware/http-upload.js';
import { changeConfig, createTestSensor, removeDir, type TestSensor } from '../helpers/test-sensor.js';
import { drain, UdpCapture } from '../udp/helpers/udp-capture.js';
import { waitFor } from '../helpers/poll.js';

let unit: TestSensor;
let plane: FaultPlane;
let app: FastifyInstance;
let base: string;

beforeAll(async () => {
  unit = await createTestSensor({
    product: 'OS-1-32',
    hal: (defaults) => ({
      ...defaults,
      firmware: createSimFirmware({
        dataDir: join(defaults.firmware.slotDirectory, '..'),
        updateMs: 0,
        maxBootAttempts: 2,
      }),
    }),
  });
  plane = new FaultPlane(unit, { log: pino({ level: 'silent' }), timing: FAST_TIMING });
  app = unit.app;
  base = await app.listen({ host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  plane.close();
  await unit.close();
  removeDir(unit.dataDir);
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON documents of the API
async function get(url: string): Promise<any> {
  const res = await app.inject({ url });
  expect(res.statusCode).toBe(200);
  return res.json();
}

interface Entry {
  id: string;
  active: boolean;
  cursor: number;
  msg_verbose: string;
}

async function alertLog(): Promise<{ active: Entry[]; log: Entry[] }> {
  return get('/api/v1/sensor/alerts');
}

/** The alert's latest trigger entry and, when given, the clear entry after it. */
async function expectTriggerThenClear(id: string): Promise<void> {
  const { active, log } = await alertLog();
  expect(active.map((a) => a.id)).not.toContain(id);
  const trigger = log.findLast((e) => e.id === id && e.active);
  const clear = log.findLast((e) => e.id === id && !e.active);
  expect(trigger).toBeDefined();
  expect(clear).toBeDefined();
  expect(clear!.cursor).toBeGreaterThan(trigger!.cursor);
}

const unitRule = (action: object, lifetime: object = {}) => ({ selector: { plane: 'unit' }, action, lifetime });

describe('unit-state fault rules', () => {
  it('raise any catalogue alert (by name) while the rule lives; its end clears it', async () => {
    const vars = { temperature_c: 97, threshold_c: 95 };
    const { id } = plane.add(unitRule({ type: 'alert', id: 'OVERTEMP_ERROR', vars }));
    const raised = (await alertLog()).active.find((a) => a.id === ALERT_IDS.OVERTEMP_ERROR);
    expect(raised?.msg_verbose).toMatch(/^Internal temperature 97 °C .* 95 °C/);
    plane.remove(id);
    await expectTriggerThenClear(ALERT_IDS.OVERTEMP_ERROR);
  });

  it('an alert with a duration clears by itself', async () => {
    plane.add(unitRule({ type: 'alert', id: ALERT_IDS.LIDAR_SEND_FAILED.toLowerCase() }, { duration_ms: 50 }));
    expect((await alertLog()).active.map((a) => a.id)).toContain(ALERT_IDS.LIDAR_SEND_FAILED);
    await waitFor(
      async () => !(await alertLog()).active.some((a) => a.id === ALERT_IDS.LIDAR_SEND_FAILED),
      10_000,
      'the alert to clear',
    );
    await expectTriggerThenClear(ALERT_IDS.LIDAR_SEND_FAILED);
  });

  it('a hot environment makes the temperature threshold raise OVERTEMP itself; cooling clears it', async () => {
    const { id } = plane.add(unitRule({ type: 'temperature', ambient_c: 60 }));
    const telemetry = await get('/api/v1/sensor/telemetry');
    expect(telemetry.internal_temperature_deg_c).toBeGreaterThanOrEqual(85);
    const warning = (await alertLog()).active.find((a) => a.id === ALERT_IDS.OVERTEMP_WARNING);
    expect(warning?.msg_verbose).toContain(`${telemetry.internal_temperature_deg_c} °C`);
    plane.remove(id);
    expect((await get('/api/v1/sensor/telemetry')).internal_temperature_deg_c).toBeLessThan(80);
    await expectTriggerThenClear(ALERT_IDS.OVERTEMP_WARNING);
  });

  it('a temperature ramp crosses the threshold on its way', async () => {
    const { id } = plane.add(unitRule({ type: 'temperature', ambient_c: 70, ramp_ms: 300 }));
    expect((await get('/api/v1/sensor/telemetry')).internal_temperature_deg_c).toBeLessThan(85);
    // The log, not the reading: once the shutdown level is crossed the unit stops its lidar and cools
    // (docs/faults.md), so the reading need not stay above the threshold long enough to be polled.
    const raised = async (id: string) => (await alertLog()).log.some((e) => e.id === id && e.active);
    await waitFor(() => raised(ALERT_IDS.OVERTEMP_ERROR), 10_000, 'the ramp to cross the shutdown threshold');
    expect(await raised(ALERT_IDS.OVERTEMP_WARNING)).toBe(true);
    plane.remove(id);
    await get('/api/v1/sensor/telemetry');
    await expectTriggerThenClear(ALERT_IDS.OVERTEMP_ERROR);
  });

  it('a low supply voltage raises the input-voltage alert through the threshold; restoring it clears', async () => {
    const { id } = plane.add(unitRule({ type: 'voltage', supply_mv: 20_000 }));
    expect((await get('/api/v1/sensor/telemetry')).input_voltage_mv).toBeLessThan(21_000);
    expect((await alertLog()).active.map((a) => a.id)).toContain(ALERT_IDS.INPUT_VOLTAGE_LOW_WARNING);
    plane.remove(id);
    expect((await get('/api/v1/sensor/telemetry')).input_voltage_mv).toBeGreaterThan(22_000);
    await expectTriggerThenClear(ALERT_IDS.INPUT_VOLTAGE_LOW_WARNING);
  });

  it('link down: carrier false and ETHERNET_LINK_BAD, then back up', async () => {
    const { id } = plane.add(unitRule({ type: 'link_down' }));
    expect((await get('/api/v1/system/network')).carrier).toBe(false);
    expect((await alertLog()).active.map((a) => a.id)).toContain(ALERT_IDS.ETHERNET_LINK_BAD);
    plane.remove(id);
    expect((await get('/api/v1/system/network')).carrier).toBe(true);
    await expectTriggerThenClear(ALERT_IDS.ETHERNET_LINK_BAD);
  });

  it('a PTP grandmaster appears (SLAVE, gm_present) and disappears (LISTENING)', async () => {
    const { id } = plane.add(unitRule({ type: 'ptp_grandmaster' }));
    const ptp = await get('/api/v1/time/ptp');
    expect(ptp.port_data_set.port_state).toBe('SLAVE');
    expect(ptp.time_status_np.gm_present).toBe(true);
    expect(ptp.parent_data_set.grandmaster_identity).not.toBe(ptp.port_data_set.port_identity.split('-')[0]);
    plane.remove(id);
    const after = await get('/api/v1/time/ptp');
    expect(after.port_data_set.port_state).toBe('LISTENING');
    expect(after.time_status_np.gm_present).toBe(false);
  });

  it('sync pulses lock and are lost again', async () => {
    const { id } = plane.add(unitRule({ type: 'sync_pulse_lock' }));
    const locked = (await get('/api/v1/time/sensor')).sync_pulse_in;
    expect(locked.locked).toBe(1);
    expect(locked.diagnostics.last_period_nsec).toBe(1_000_000_000);
    plane.remove(id);
    expect((await get('/api/v1/time/sensor')).sync_pulse_in.locked).toBe(0);
  });

  it('phase lock LOST while the rule lives', async () => {
    await changeConfig(unit.sensor, { phase_lock_enable: true }, { reinit: true, persist: false });
    expect((await get('/api/v1/sensor/telemetry')).phase_lock_status).toBe('LOCKED');
    const { id } = plane.add(unitRule({ type: 'phase_lock_lost' }));
    expect((await get('/api/v1/sensor/telemetry')).phase_lock_status).toBe('LOST');
    plane.remove(id);
    expect((await get('/api/v1/sensor/telemetry')).phase_lock_status).toBe('LOCKED');
  });

  it('a slow reinit: INITIALIZING, metadata 503 + Retry-After, no packets while it lasts, then RUNNING', async () => {
    const lidar = await UdpCapture.listen();
    try {
      await changeConfig(
        unit.sensor,
        { udp_dest: '127.0.0.1', udp_port_lidar: lidar.port, lidar_mode: '512x10' },
        { reinit: true, persist: false },
      );
      await waitFor(() => lidar.count > 5, 10_000, 'lidar packets');
      plane.add(unitRule({ type: 'reinit_time', ms: 400 }, { duration_ms: 60_000 }));
      const put = app.inject({
        method: 'PUT',
        url: '/api/v1/sensor/config/lidar_mode',
        headers: { 'content-type': 'application/json' },
        payload: '"1024x10"',
      });
      await waitFor(
        async () => (await get('/api/v1/sensor/metadata/sensor_info')).status === 'INITIALIZING',
        10_000,
        'INITIALIZING',
      );
      const during = await app.inject({ url: '/api/v1/sensor/metadata/lidar_data_format' });
      expect(during.statusCode).toBe(503);
      expect(during.headers['retry-after']).toBeDefined();
      await drain(lidar);
      lidar.clear();
      await waitFor(
        () =>
          unit.sensor.run.status === 'INITIALIZING' && lidar.count === 0 && drain(lidar).then(() => lidar.count === 1),
        10_000,
        'a drained, silent stream',
      );
      expect((await put).statusCode).toBeLessThan(300);
      const info = await get('/api/v1/sensor/metadata/sensor_info');
      expect(info.status).toBe('RUNNING');
      await waitFor(() => lidar.count > 5, 10_000, 'packets of the new initialization');
    } finally {
      plane.clear();
      await lidar.close();
    }
  });

  it('restart with a duration: unreachable (503 + Retry-After) while it lasts, then a new initialization', async () => {
    const before = await get('/api/v1/sensor/metadata/sensor_info');
    const timing = plane.add(unitRule({ type: 'restart_time', ms: 400 }));
    const restart = plane.add(unitRule({ type: 'restart' }));
    expect(plane.get(restart.id)).toMatchObject({ reason: 'done' });
    const during = await app.inject({ url: '/api/v1/sensor/config' });
    expect(during.statusCode).toBe(503);
    expect(during.headers['retry-after']).toBeDefined();
    await waitFor(
      async () => (await app.inject({ url: '/api/v1/sensor/metadata/sensor_info' })).statusCode === 200,
      10_000,
      'the unit back',
    );
    await waitFor(
      async () => (await get('/api/v1/sensor/metadata/sensor_info')).status === 'RUNNING',
      10_000,
      'RUNNING',
    );
    expect((await get('/api/v1/sensor/metadata/sensor_info')).initialization_id).not.toBe(before.initialization_id);
    plane.remove(timing.id);
    expect(unit.sensor.power.simulatedRebootMs).toBe(50);
  });

  describe('a fault holds what it promises for its whole lifetime (issue 23)', () => {
    const activeIds = async () => (await alertLog()).active.map((a) => a.id);
    const restartAndWait = async () => {
      await unit.sensor.power.restart();
      await waitFor(
        async () => (await get('/api/v1/sensor/metadata/sensor_info')).status === 'RUNNING',
        10_000,
        'RUNNING',
      );
    };

    it('a forced OVERTEMP_WARNING stays while the telemetry model samples a cool unit; the end hands back', async () => {
      const { id } = plane.add(unitRule({ type: 'alert', id: 'OVERTEMP_WARNING' }));
      // Each telemetry read is a sample of the model (about 63 °C): the threshold would clear the alert.
      for (let i = 0; i < 3; i++) {
        expect((await get('/api/v1/sensor/telemetry')).internal_temperature_deg_c).toBeLessThan(80);
        expect(await activeIds()).toContain(ALERT_IDS.OVERTEMP_WARNING);
      }
      await restartAndWait();
      await get('/api/v1/sensor/telemetry');
      expect(await activeIds()).toContain(ALERT_IDS.OVERTEMP_WARNING);
      plane.remove(id);
      await get('/api/v1/sensor/telemetry');
      await expectTriggerThenClear(ALERT_IDS.OVERTEMP_WARNING);
    });

    it('a forced run-scoped alert survives a reinit and a restart', async () => {
      const { id } = plane.add(unitRule({ type: 'alert', id: ALERT_IDS.LIDAR_SEND_FAILED }));
      await restartAndWait();
      expect(await activeIds()).toContain(ALERT_IDS.LIDAR_SEND_FAILED);
      plane.remove(id);
      await expectTriggerThenClear(ALERT_IDS.LIDAR_SEND_FAILED);
    });

    it('temperature, voltage and link down hold across samples and a restart', async () => {
      const hot = plane.add(unitRule({ type: 'temperature', ambient_c: 60 }));
      const low = plane.add(unitRule({ type: 'voltage', supply_mv: 20_000 }));
      const link = plane.add(unitRule({ type: 'link_down' }));
      await restartAndWait();
      const telemetry = await get('/api/v1/sensor/telemetry');
      expect(telemetry.internal_temperature_deg_c).toBeGreaterThanOrEqual(85);
      expect(telemetry.input_voltage_mv).toBeLessThan(21_000);
      expect((await get('/api/v1/system/network')).carrier).toBe(false);
      expect(await activeIds()).toEqual(
        expect.arrayContaining([
          ALERT_IDS.OVERTEMP_WARNING,
          ALERT_IDS.INPUT_VOLTAGE_LOW_WARNING,
          ALERT_IDS.ETHERNET_LINK_BAD,
        ]),
      );
      for (const rule of [hot, low, link]) plane.remove(rule.id);
      await get('/api/v1/sensor/telemetry');
      expect((await get('/api/v1/system/network')).carrier).toBe(true);
      expect(await activeIds()).not.toEqual(expect.arrayContaining([ALERT_IDS.OVERTEMP_WARNING]));
    });
  });

  it('unit rules take no count; a 400 names it', () => {
    expect(() => plane.add(unitRule({ type: 'link_down' }, { count: 3 }))).toThrow(/lifetime\/count/);
  });

  it('firmware: an upload refused midway installs nothing', async () => {
    const before = await get('/api/v1/system/firmware');
    const { id } = plane.add(unitRule({ type: 'firmware_upload_refuse', after_bytes: 100_000 }));
    const result = await uploadFirmware(
      base,
      buildImage('ousteros-image-prod-bootes-v3.2.0+20250101120000', generatedPayload('x', 400_000)),
    );
    expect(result.status).toBe(503);
    expect(result.body).toMatch(/refused the firmware upload after 100000 bytes/);
    expect(await get('/api/v1/system/firmware')).toEqual(before);
    plane.remove(id);
  });

  it('firmware: a boot that fails rolls the unit back (the sim.boot=fail path)', async () => {
    const { id } = plane.add(unitRule({ type: 'firmware_boot_fail' }));
    const rev = 'ousteros-image-prod-bootes-v3.2.0+20250101120000';
    expect((await uploadFirmware(base, buildImage(rev, generatedPayload('y', 5000)))).status).toBe(204);
    // While the unit reboots its API answers 503: poll until it answers again with the rollback alert.
    const rolledBack = async () => {
      const res = await app.inject({ url: '/api/v1/sensor/alerts' });
      return (
        res.statusCode === 200 &&
        (res.json() as { active: Entry[] }).active.some((a) => a.id === ALERT_IDS.FIRMWARE_ROLLBACK)
      );
    };
    await waitFor(rolledBack, 20_000, 'the rollback');
    await waitFor(
      async () => (await app.inject({ url: '/api/v1/sensor/metadata/sensor_info' })).json().status === 'RUNNING',
      10_000,
      'the unit back up',
    );
    expect((await get('/api/v1/system/firmware')).fw).not.toContain('v3.2.0');
    plane.remove(id);
  });
});
