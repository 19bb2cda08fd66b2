/** Thresholds → alerts, with hysteresis, against a scripted telemetry source. */
import { describe, expect, it } from 'vitest';
import { AlertLog } from '../../src/alerts/alert-log.js';
import { ALERT_IDS } from '../../src/model/alert-catalogue.js';
import type { TelemetryHal, TelemetryReading } from '../../src/hal/telemetry.js';
import { TelemetryMonitor } from '../../src/core/telemetry-monitor.js';

function scripted(): { source: TelemetryHal; set(reading: Partial<TelemetryReading>): void } {
  let next: TelemetryReading = {
    input_voltage_mv: 23_700,
    internal_temperature_deg_c: 60,
    phase_lock_status: 'DISABLED',
    timestamp_ns: 0n,
  };
  return {
    source: { applyRun() {}, read: async () => next, close: async () => {} },
    set(reading) {
      next = { ...next, ...reading };
    },
  };
}

describe('TelemetryMonitor', () => {
  it('raises at the limit and clears only past the hysteresis band (voltage low)', async () => {
    const { source, set } = scripted();
    const alerts = new AlertLog();
    const monitor = new TelemetryMonitor({ source, alerts, intervalMs: 0 });
    const sequence: [number, boolean][] = [
      [21_000, false],
      [20_999, true],
      [21_100, true],
      [21_299, true],
      [20_500, true],
      [21_300, false],
      [21_050, false],
    ];
    for (const [voltage, active] of sequence) {
      set({ input_voltage_mv: voltage });
      await monitor.read();
      expect([voltage, alerts.isActive(ALERT_IDS.INPUT_VOLTAGE_LOW_WARNING)]).toEqual([voltage, active]);
    }
    // One trigger and one clear: no flapping around the limit.
    expect(alerts.snapshot().log.map((e) => e.active)).toEqual([true, false]);
    expect(alerts.snapshot().log[0].msg_verbose).toContain('20999 mV');
    expect(alerts.snapshot().log[1].msg_verbose).toMatch(/Cleared: Input voltage 21300 mV is back within limits/);
  });

  it('temperature: warning at 85, error at 95, both clear when it cools', async () => {
    const { source, set } = scripted();
    const alerts = new AlertLog();
    const monitor = new TelemetryMonitor({ source, alerts, intervalMs: 0 });
    set({ internal_temperature_deg_c: 85 });
    await monitor.read();
    expect(alerts.snapshot().active.map((e) => e.id)).toEqual([ALERT_IDS.OVERTEMP_WARNING]);
    set({ internal_temperature_deg_c: 96 });
    await monitor.read();
    expect(alerts.snapshot().active.map((e) => e.id)).toEqual([ALERT_IDS.OVERTEMP_WARNING, ALERT_IDS.OVERTEMP_ERROR]);
    set({ internal_temperature_deg_c: 91 });
    await monitor.read();
    expect(alerts.snapshot().active.map((e) => e.id)).toEqual([ALERT_IDS.OVERTEMP_WARNING]);
    set({ internal_temperature_deg_c: 70 });
    await monitor.read();
    expect(alerts.snapshot().active).toEqual([]);
  });

  it('a quantity the source cannot measure changes no alert', async () => {
    const { source, set } = scripted();
    const alerts = new AlertLog();
    alerts.raise(ALERT_IDS.OVERTEMP_WARNING, {});
    const monitor = new TelemetryMonitor({ source, alerts, intervalMs: 0 });
    set({ internal_temperature_deg_c: undefined, input_voltage_mv: undefined });
    await monitor.read();
    expect(alerts.isActive(ALERT_IDS.OVERTEMP_WARNING)).toBe(true);
    expect(alerts.snapshot().nextCursor).toBe(1);
  });

  it('samples in the background until stopped, and reports read failures', async () => {
    let reads = 0;
    const errors: unknown[] = [];
    const source: TelemetryHal = {
      applyRun() {},
      read: async () => {
        reads++;
        if (reads === 2) throw new Error('sensor bus error');
        return { phase_lock_status: 'DISABLED', timestamp_ns: 0n, input_voltage_mv: 18_000 };
      },
      close: async () => {},
    };
    const alerts = new AlertLog();
    const monitor = new TelemetryMonitor({ source, alerts, intervalMs: 5, onError: (e) => errors.push(e) });
    monitor.start();
    const deadline = Date.now() + 5_000;
    while (reads < 4 && Date.now() < deadline) await new Promise((r) => setImmediate(r));
    monitor.stop();
    expect(reads).toBeGreaterThanOrEqual(4);
    expect(String(errors[0])).toMatch(/sensor bus error/);
    expect(alerts.isActive(ALERT_IDS.INPUT_VOLTAGE_LOW_ERROR)).toBe(true);
  });
});
