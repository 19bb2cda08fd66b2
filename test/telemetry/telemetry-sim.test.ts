/** The simulated unit's physical model, on a clock the test controls. */
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/registry.js';
import type { SensorConfig } from '../../src/model/index.js';
import { powerDrawW, SimTelemetry } from '../../src/hal/sim/telemetry-sim.js';

const run = (changes: Partial<SensorConfig> = {}) => ({
  config: { ...defaultConfig(), ...changes },
  timestampOffsetNs: 0n,
});
const SECOND = 1_000_000_000n;

function modelAt() {
  let now = 0n;
  const telemetry = new SimTelemetry({ monotonicNs: () => now, random: () => 0.5 });
  return { telemetry, advance: (seconds: number) => (now += BigInt(seconds) * SECOND) };
}

describe('power draw', () => {
  it('is 15-19 W running, 5 W in STANDBY, and less with a narrow window at 2x', () => {
    for (const lidar_mode of ['512x10', '1024x10', '2048x10', '512x20', '1024x20'] as const) {
      const watts = powerDrawW(run({ lidar_mode }).config);
      expect(watts).toBeGreaterThanOrEqual(14);
      expect(watts).toBeLessThanOrEqual(20);
    }
    expect(powerDrawW(run({ lidar_mode: '1024x20' }).config)).toBeGreaterThan(
      powerDrawW(run({ lidar_mode: '1024x10' }).config),
    );
    expect(powerDrawW(run({ operating_mode: 'STANDBY' }).config)).toBe(5);
    const wide = powerDrawW(run({ signal_multiplier: 2, azimuth_window: [0, 180_000] }).config);
    const narrow = powerDrawW(run({ signal_multiplier: 2, azimuth_window: [0, 90_000] }).config);
    expect(narrow).toBeLessThan(wide);
    // At 1x the window does not change the power.
    expect(powerDrawW(run({ azimuth_window: [0, 90_000] }).config)).toBe(powerDrawW(run().config));
  });
});

describe('SimTelemetry', () => {
  it('reads about 24 V and 640-690 mA when running on a 24 V supply', async () => {
    const { telemetry } = modelAt();
    telemetry.applyRun(run());
    const reading = await telemetry.read();
    expect(reading.input_voltage_mv).toBeGreaterThanOrEqual(23_600);
    expect(reading.input_voltage_mv).toBeLessThanOrEqual(23_900);
    expect(reading.input_current_ma).toBeGreaterThanOrEqual(640);
    expect(reading.input_current_ma).toBeLessThanOrEqual(690);
    expect(Number.isInteger(reading.input_voltage_mv)).toBe(true);
    expect(Number.isInteger(reading.internal_temperature_deg_c)).toBe(true);
  });

  it('warms from ambient toward a steady state that depends on the mode', async () => {
    const { telemetry, advance } = modelAt();
    telemetry.applyRun(run());
    const temperatures: number[] = [];
    for (let i = 0; i < 12; i++) {
      temperatures.push((await telemetry.read()).internal_temperature_deg_c!);
      advance(300);
    }
    expect(temperatures[0]).toBe(25);
    for (let i = 1; i < temperatures.length; i++) expect(temperatures[i]).toBeGreaterThanOrEqual(temperatures[i - 1]);
    const running = temperatures.at(-1)!;
    expect(running).toBeGreaterThanOrEqual(45);
    expect(running).toBeLessThanOrEqual(80);

    telemetry.applyRun(run({ operating_mode: 'STANDBY' }));
    advance(3600);
    const standby = (await telemetry.read()).internal_temperature_deg_c!;
    expect(standby).toBeLessThan(running);
    expect(standby).toBe(Math.round(25 + 2.4 * 5));
  });

  it('follows the supply voltage and the ambient temperature it is given', async () => {
    const { telemetry } = modelAt();
    telemetry.applyRun(run());
    telemetry.setInputs({ supplyVoltageMv: 12_000, ambientTemperatureC: 40 });
    telemetry.settleTemperature();
    const reading = await telemetry.read();
    expect(reading.input_voltage_mv).toBeLessThan(12_000);
    expect(reading.input_voltage_mv).toBeGreaterThan(11_000);
    // Same power from a lower voltage: more current.
    expect(reading.input_current_ma).toBeGreaterThan(1_200);
    expect(reading.internal_temperature_deg_c).toBe(Math.round(40 + 2.4 * powerDrawW(run().config)));
    expect(telemetry.inputs()).toMatchObject({ supplyVoltageMv: 12_000, ambientTemperatureC: 40 });
  });

  it('phase lock: DISABLED unless enabled, LOCKED when enabled, LOST when the motor is disturbed, not when time is lost', async () => {
    const { telemetry } = modelAt();
    telemetry.applyRun(run());
    expect((await telemetry.read()).phase_lock_status).toBe('DISABLED');
    telemetry.applyRun(run({ phase_lock_enable: true }));
    expect((await telemetry.read()).phase_lock_status).toBe('LOCKED');
    telemetry.setInputs({ timeSourceLost: true });
    expect((await telemetry.read()).phase_lock_status).toBe('LOCKED');
    telemetry.setInputs({ motorDisturbed: true });
    expect((await telemetry.read()).phase_lock_status).toBe('LOST');
    telemetry.setInputs({ motorDisturbed: false });
    telemetry.applyRun(run({ phase_lock_enable: true, operating_mode: 'STANDBY' }));
    expect((await telemetry.read()).phase_lock_status).toBe('LOST');
  });

  it('timestamps with the sensor clock of the run', async () => {
    const { telemetry } = modelAt();
    telemetry.applyRun({ config: defaultConfig(), timestampOffsetNs: 10n ** 18n });
    const before = process.hrtime.bigint() + 10n ** 18n;
    const reading = await telemetry.read();
    expect(reading.timestamp_ns).toBeGreaterThanOrEqual(before);
    expect(reading.timestamp_ns).toBeLessThanOrEqual(process.hrtime.bigint() + 10n ** 18n);
  });
});
