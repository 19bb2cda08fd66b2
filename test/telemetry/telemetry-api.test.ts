/** GET /api/v1/sensor/telemetry on the simulated unit, and thresholds turning into alerts. */
import { afterEach, describe, expect, it } from 'vitest';
import { SimTelemetry } from '../../src/hal/sim/telemetry-sim.js';
import { ALERT_IDS } from '../../src/model/alert-catalogue.js';
import { createTestSensor, removeDir, type TestSensor } from '../helpers/test-sensor.js';
import { waitFor } from '../helpers/poll.js';

interface Telemetry {
  input_current_ma: number;
  input_voltage_mv: number;
  internal_temperature_deg_c: number;
  phase_lock_status: string;
  timestamp_ns: number;
}

const units: TestSensor[] = [];
afterEach(async () => {
  for (const unit of units.splice(0)) {
    await unit.close();
    removeDir(unit.dataDir);
  }
});

async function unit(): Promise<TestSensor> {
  const u = await createTestSensor();
  units.push(u);
  return u;
}

function simTelemetry(u: TestSensor): SimTelemetry {
  const telemetry = u.hal.telemetry;
  if (!(telemetry instanceof SimTelemetry)) throw new Error('the test sensor should run the simulated telemetry');
  return telemetry;
}

async function telemetry(u: TestSensor): Promise<{ body: Telemetry; raw: string }> {
  const response = await u.app.inject('/api/v1/sensor/telemetry');
  expect(response.statusCode).toBe(200);
  expect(response.headers['content-type']).toBe('application/json');
  return { body: response.json() as Telemetry, raw: response.body };
}

async function activeAlertIds(u: TestSensor): Promise<string[]> {
  const response = await u.app.inject('/api/v1/sensor/alerts');
  return (response.json() as { active: { id: string }[] }).active.map((e) => e.id);
}

describe('GET /api/v1/sensor/telemetry', () => {
  it('has the spec fields, in order, as integers and a phase lock keyword', async () => {
    const u = await unit();
    const { body, raw } = await telemetry(u);
    expect(Object.keys(body)).toEqual([
      'input_current_ma',
      'input_voltage_mv',
      'internal_temperature_deg_c',
      'phase_lock_status',
      'timestamp_ns',
    ]);
    for (const key of ['input_current_ma', 'input_voltage_mv', 'internal_temperature_deg_c', 'timestamp_ns'] as const)
      expect(Number.isInteger(body[key])).toBe(true);
    expect(raw).toMatch(/"timestamp_ns":\d+\}$/);
    expect(body.phase_lock_status).toBe('DISABLED');
    expect(body.input_voltage_mv).toBeGreaterThanOrEqual(23_600);
    expect(body.input_voltage_mv).toBeLessThanOrEqual(23_900);
    expect(body.input_current_ma).toBeGreaterThanOrEqual(640);
    expect(body.input_current_ma).toBeLessThanOrEqual(690);
    const later = (await telemetry(u)).body;
    expect(later.timestamp_ns).toBeGreaterThan(body.timestamp_ns);
  });

  it('draws less current in STANDBY and reports phase lock once enabled', async () => {
    const u = await unit();
    const running = (await telemetry(u)).body;
    expect(
      (
        await u.app.inject({
          method: 'PUT',
          url: '/api/v1/sensor/config/operating_mode',
          payload: '"STANDBY"',
          headers: { 'content-type': 'application/json' },
        })
      ).statusCode,
    ).toBe(204);
    const standby = (await telemetry(u)).body;
    // 5 W instead of about 16 W from the same supply.
    expect(standby.input_current_ma).toBeLessThan(running.input_current_ma / 2);
    expect(standby.input_current_ma).toBeGreaterThan(150);

    expect(
      (
        await u.app.inject({
          method: 'POST',
          url: '/api/v1/sensor/config',
          payload: { operating_mode: 'NORMAL', phase_lock_enable: true },
        })
      ).statusCode,
    ).toBe(204);
    expect((await telemetry(u)).body.phase_lock_status).toBe('LOCKED');
    simTelemetry(u).setInputs({ motorDisturbed: true });
    expect((await telemetry(u)).body.phase_lock_status).toBe('LOST');
  });

  it('raises and clears INPUT_VOLTAGE alerts as the supply crosses the limits', async () => {
    const u = await unit();
    const sim = simTelemetry(u);
    // Input voltage ≈ supply − 0.4 V at this load.
    sim.setInputs({ supplyVoltageMv: 20_000 });
    expect((await telemetry(u)).body.input_voltage_mv).toBeLessThan(21_000);
    expect(await activeAlertIds(u)).toEqual([ALERT_IDS.INPUT_VOLTAGE_LOW_WARNING]);

    sim.setInputs({ supplyVoltageMv: 18_000 });
    await telemetry(u);
    expect(await activeAlertIds(u)).toEqual([ALERT_IDS.INPUT_VOLTAGE_LOW_WARNING, ALERT_IDS.INPUT_VOLTAGE_LOW_ERROR]);

    // Back above the warning limit but inside its hysteresis band: the warning stays. The 18 V step shut the lidar
    // down and it comes back by itself, so the load is either 8.5 W or 15.75 W: 21.44 V gives an input of about
    // 21.24 or 21.07 V, inside the band either way (the noise is ±15 mV).
    sim.setInputs({ supplyVoltageMv: 21_440 });
    const inBand = (await telemetry(u)).body.input_voltage_mv;
    expect(inBand).toBeGreaterThanOrEqual(21_000);
    expect(inBand).toBeLessThan(21_300);
    expect(await activeAlertIds(u)).toEqual([ALERT_IDS.INPUT_VOLTAGE_LOW_WARNING]);

    sim.setInputs({ supplyVoltageMv: 24_000 });
    await telemetry(u);
    expect(await activeAlertIds(u)).toEqual([]);

    sim.setInputs({ supplyVoltageMv: 30_000 });
    await telemetry(u);
    expect(await activeAlertIds(u)).toEqual([ALERT_IDS.INPUT_VOLTAGE_HIGH_WARNING, ALERT_IDS.INPUT_VOLTAGE_HIGH_ERROR]);
    const log = (await u.app.inject('/api/v1/sensor/alerts')).json() as {
      log: { id: string; category: string; level: string; active: boolean }[];
    };
    expect(log.log.filter((e) => e.category === 'INPUT_VOLTAGE').map((e) => [e.id, e.level, e.active])).toEqual([
      [ALERT_IDS.INPUT_VOLTAGE_LOW_WARNING, 'WARNING', true],
      [ALERT_IDS.INPUT_VOLTAGE_LOW_ERROR, 'ERROR', true],
      [ALERT_IDS.INPUT_VOLTAGE_LOW_ERROR, 'ERROR', false],
      [ALERT_IDS.INPUT_VOLTAGE_LOW_WARNING, 'WARNING', false],
      [ALERT_IDS.INPUT_VOLTAGE_HIGH_WARNING, 'WARNING', true],
      [ALERT_IDS.INPUT_VOLTAGE_HIGH_ERROR, 'ERROR', true],
    ]);
  });

  it('raises and clears OVERTEMP alerts as the unit heats and cools', async () => {
    const u = await unit();
    const sim = simTelemetry(u);
    sim.setInputs({ ambientTemperatureC: 55 });
    sim.settleTemperature();
    const warm = (await telemetry(u)).body.internal_temperature_deg_c;
    expect(warm).toBeGreaterThanOrEqual(85);
    expect(warm).toBeLessThan(95);
    expect(await activeAlertIds(u)).toEqual([ALERT_IDS.OVERTEMP_WARNING]);

    sim.setInputs({ ambientTemperatureC: 65 });
    sim.settleTemperature();
    await telemetry(u);
    expect(await activeAlertIds(u)).toEqual([ALERT_IDS.OVERTEMP_WARNING, ALERT_IDS.OVERTEMP_ERROR]);
    const entry = (
      (await u.app.inject('/api/v1/sensor/alerts')).json() as {
        active: { category: string; level: string; msg_verbose: string }[];
      }
    ).active[1];
    expect(entry).toMatchObject({ category: 'OVERTEMP', level: 'ERROR' });
    expect(entry.msg_verbose).toMatch(/shutdown level of 95 °C/);

    sim.setInputs({ ambientTemperatureC: 25 });
    sim.settleTemperature();
    await telemetry(u);
    expect(await activeAlertIds(u)).toEqual([]);
  });

  it('the background monitor raises alerts without anyone reading telemetry', async () => {
    const u = await unit();
    simTelemetry(u).setInputs({ supplyVoltageMv: 18_000 });
    await waitFor(() => u.sensor.alerts.isActive(ALERT_IDS.INPUT_VOLTAGE_LOW_ERROR), 10_000, 'INPUT_VOLTAGE_LOW_ERROR');
    expect(u.sensor.alerts.isActive(ALERT_IDS.INPUT_VOLTAGE_LOW_ERROR)).toBe(true);
  });
});
