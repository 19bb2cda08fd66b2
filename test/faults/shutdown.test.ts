/**
 * Thermal and input-voltage shutdown end to end, driven through the fault plane's temperature and voltage
 * actions and observed as a client sees it: sensor_info status, metadata and configuration answers, the alert
 * log, the lidar packets (decoded by the tests' own decoder) and the data plane's run; recovery by itself.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALERT_IDS } from '../../src/model/alert-catalogue.js';
import { FaultPlane } from '../../src/faults/fault-plane.js';
import { FAST_TIMING } from '../../src/faults/index.js';
import type { EmitterStreams } from '../../src/hal/emitter-streams.js';
import { changeConfig, createTestSensor, removeDir, type TestSensor } from '../helpers/test-sensor.js';
import { drain, UdpCapture } from '../udp/helpers/udp-capture.js';
import { waitFor } from '../helpers/poll.js';
import { decodeLidarPacket } from '../udp/decoder/lidar-decoder.js';

let unit: TestSensor;
let plane: FaultPlane;
let lidar: UdpCapture;
const PIXELS = 32;

beforeAll(async () => {
  unit = await createTestSensor({ product: 'OS-1-32' });
  lidar = await UdpCapture.listen();
  plane = new FaultPlane(unit, { log: pino({ level: 'silent' }), timing: FAST_TIMING });
  const config = { udp_dest: '127.0.0.1', udp_port_lidar: lidar.port, udp_port_imu: 0, lidar_mode: '512x10' };
  await changeConfig(unit.sensor, config, { reinit: true, persist: false });
  await waitFor(() => lidar.count > 10, 10_000, 'lidar packets');
});

afterAll(async () => {
  plane.close();
  await unit.close();
  await lidar.close();
  removeDir(unit.dataDir);
});

async function get(url: string): Promise<{ status: number; body: any }> {
  const res = await unit.app.inject({ url });
  return { status: res.statusCode, body: res.statusCode === 204 ? null : res.json() };
}
const status = async () => (await get('/api/v1/sensor/metadata/sensor_info')).body.status as string;
const activeAlerts = async () =>
  ((await get('/api/v1/sensor/alerts')).body.active as { id: string }[]).map((a) => a.id);
/** A telemetry read samples the thresholds at once (the monitor also samples every second). */
const sample = async () => (await get('/api/v1/sensor/telemetry')).body;
const unitRule = (action: object) => ({ selector: { plane: 'unit' }, action });

/** Packets received since the capture was cleared, with their header bytes 16-19 decoded. */
async function headers() {
  await drain(lidar);
  // drain() sends marker datagrams through the same socket; they are not the unit's.
  return lidar.datagrams
    .filter((d) => !d.data.subarray(0, 7).equals(Buffer.from('marker-')))
    .map((d) => decodeLidarPacket(d.data, 'RNG19_RFL8_SIG16_NIR16', PIXELS));
}

/** A poll that reads the telemetry (the unit's guard acts on readings), then asks whether its status is `want`. */
const statusIs = (want: string) => async () => {
  await sample();
  return (await status()) === want;
};

async function expectShutDownThenBack(rule: object, alert: string): Promise<void> {
  const before = (await get('/api/v1/sensor/metadata/sensor_info')).body.initialization_id as number;
  const { id } = plane.add(unitRule(rule));
  await waitFor(statusIs('ERROR'), 10_000, 'status ERROR');
  expect(await activeAlerts()).toContain(alert);
  // Configuration readable, metadata not (a real unit in ERROR), named in a 409.
  expect((await get('/api/v1/sensor/config')).status).toBe(200);
  const metadata = await get('/api/v1/sensor/metadata');
  expect(metadata.status).toBe(409);
  expect(metadata.body.detail).toContain('its status is ERROR');
  expect((await get('/api/v1/sensor/metadata/lidar_data_format')).status).toBe(409);
  // No run in the data plane: no packet can leave.
  expect((await (unit.hal.streams as EmitterStreams).stats()).lidar).toBeNull();
  // A configuration change while shut down is stored, and the unit stays down.
  await changeConfig(unit.sensor, { nmea_leap_seconds: 3 }, { reinit: true, persist: false });
  expect(await status()).toBe('ERROR');
  expect((await (unit.hal.streams as EmitterStreams).stats()).lidar).toBeNull();

  plane.remove(id);
  await waitFor(statusIs('RUNNING'), 10_000, 'RUNNING again, by itself');
  expect(await activeAlerts()).not.toContain(alert);
  const after = await get('/api/v1/sensor/metadata/sensor_info');
  expect(after.body.initialization_id).not.toBe(before);
  expect((await get('/api/v1/sensor/config')).body.nmea_leap_seconds).toBe(3);
  // Whatever a loaded host still had queued from before the shutdown is read and dropped first.
  await drain(lidar);
  lidar.clear();
  await waitFor(() => lidar.count > 10, 10_000, 'packets again');
  const packets = await headers();
  expect(packets.length).toBeGreaterThan(10);
  expect(packets.every((p) => p.initId === after.body.initialization_id)).toBe(true);
  await changeConfig(unit.sensor, { nmea_leap_seconds: 0 }, { reinit: true, persist: false });
}

describe('shutdown levels', () => {
  it('over the shutdown temperature: ERROR, no packets, metadata 409; cooled, RUNNING again by itself', async () => {
    await expectShutDownThenBack({ type: 'temperature', ambient_c: 100 }, ALERT_IDS.OVERTEMP_ERROR);
  });

  it('input voltage too low: ERROR, no packets; restored, RUNNING again by itself', async () => {
    await expectShutDownThenBack({ type: 'voltage', supply_mv: 18_000 }, ALERT_IDS.INPUT_VOLTAGE_LOW_ERROR);
  });

  it('input voltage too high: ERROR, no packets; restored, RUNNING again by itself', async () => {
    await expectShutDownThenBack({ type: 'voltage', supply_mv: 30_000 }, ALERT_IDS.INPUT_VOLTAGE_HIGH_ERROR);
  });

  it('between warning and shutdown the packet header says thermal shutdown IMMINENT, with shot limiting steps', async () => {
    lidar.clear();
    await waitFor(() => lidar.count > 5, 10_000, 'packets');
    expect((await headers()).every((p) => p.thermalShutdown === 0 && p.shotLimiting === 0)).toBe(true);
    // Internal temperature settles at ambient + self-heating (the simulated unit's power model; a temperature
    // rule settles it at once): measure the self-heating at 25 °C, then aim at 90 °C inside.
    const probe = plane.add(unitRule({ type: 'temperature', ambient_c: 25 }));
    const selfHeating = ((await sample()).internal_temperature_deg_c as number) - 25;
    plane.remove(probe.id);
    const { id } = plane.add(unitRule({ type: 'temperature', ambient_c: 90 - selfHeating }));
    const temperature = (await sample()).internal_temperature_deg_c as number;
    expect(temperature).toBeGreaterThanOrEqual(85);
    expect(temperature).toBeLessThan(95);
    expect(await status()).toBe('RUNNING');
    expect(await activeAlerts()).toContain(ALERT_IDS.OVERTEMP_WARNING);
    lidar.clear();
    await waitFor(
      async () => (await headers()).some((p) => p.thermalShutdown === 1),
      10_000,
      'a packet saying IMMINENT',
    );
    const hot = (await headers()).filter((p) => p.thermalShutdown === 1);
    for (const p of hot) {
      // Eight equal bands from the warning level (85 °C, step 2) to just below shutdown (95 °C, step 9).
      expect(p.shotLimiting).toBe(2 + Math.floor((8 * (temperature - 85)) / 10));
      expect(p.countdownThermalShutdown).toBeGreaterThanOrEqual(1);
      expect(p.countdownThermalShutdown).toBeLessThanOrEqual(255);
      expect(p.countdownShotLimiting).toBe(0);
    }
    plane.remove(id);
    await sample();
    lidar.clear();
    await waitFor(
      async () => {
        const latest = (await headers()).at(-1);
        return latest && latest.thermalShutdown === 0 && latest.shotLimiting === 0;
      },
      10_000,
      'the header back to NORMAL',
    );
    const latest = (await headers()).at(-1)!;
    expect([latest.countdownThermalShutdown, latest.countdownShotLimiting]).toEqual([0, 0]);
  });
});
