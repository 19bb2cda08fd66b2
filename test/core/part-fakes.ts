/**
 * Fakes of what the device core's parts (src/core/unit-run.ts, power-state.ts, config-lifecycle.ts) are
 * given, recording every call, so each part can be tested alone.
 */
import { EventEmitter } from 'node:events';
import pino from 'pino';
import type { TelemetryRun } from '../../src/hal/telemetry.js';
import type { StreamPlan } from '../../src/udp/index.js';
import type { SensorEvents } from '../../src/core/sensor-types.js';

export const silentLog = pino({ level: 'silent' });

/** The HAL parts a run and the power state drive: what was applied, flagged and stamped, in order. */
export function fakeHal(
  options: { rebootMode?: 'in-process' | 'process-exit'; failApply?: (plan: StreamPlan) => boolean } = {},
) {
  const calls = {
    applied: [] as (StreamPlan | null)[],
    powered: [] as (TelemetryRun | null)[],
    alertFlags: [] as number[],
    thermal: [] as number[],
    reboots: [] as string[],
    initializations: 0,
  };
  const hal = {
    streams: {
      async apply(plan: StreamPlan | null) {
        calls.applied.push(plan);
        if (plan && options.failApply?.(plan)) throw new Error('the HAL refused the run');
      },
      setAlertFlags: (flags: number) => calls.alertFlags.push(flags),
      setThermalHeader: (bytes: number) => calls.thermal.push(bytes),
      close: async () => {},
    },
    telemetry: { applyRun: (run: TelemetryRun | null) => calls.powered.push(run) },
    time: {
      markInitialization: () => calls.initializations++,
      timestampOffsetNs: () => 0n,
    },
    power: {
      rebootMode: options.rebootMode ?? 'in-process',
      reboot: async (reason: string) => {
        calls.reboots.push(reason);
      },
    },
  };
  return { hal, calls };
}

/** An event emitter that remembers what it was told. */
export function recordingEvents() {
  const events = new EventEmitter<SensorEvents>();
  const told: string[] = [];
  for (const name of ['reinit', 'status', 'restart'] as const) events.on(name, () => told.push(name));
  return { events, told };
}
