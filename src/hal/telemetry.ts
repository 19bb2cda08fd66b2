import type { TelemetryFaults } from './faults.js';
import type { SensorConfig } from '../model/index.js';

export const PHASE_LOCK_STATUSES = ['LOCKED', 'LOST', 'DISABLED'] as const;
export type PhaseLockStatus = (typeof PHASE_LOCK_STATUSES)[number];

/**
 * One telemetry sample, in the field names and units of GET /api/v1/sensor/telemetry.
 * A source that cannot measure a quantity leaves it out rather than inventing a value.
 */
export interface TelemetryReading {
  input_current_ma?: number;
  input_voltage_mv?: number;
  internal_temperature_deg_c?: number;
  phase_lock_status: PhaseLockStatus;
  /** Sensor timestamp clock at collection, ns (may exceed 2^53 under PTP time, hence bigint). */
  timestamp_ns: bigint;
}

/**
 * What the unit is running, which sets its power draw and heat (operating_mode, lidar_mode,
 * signal_multiplier with azimuth_window), its phase lock (phase_lock_enable) and the clock of
 * timestamp_ns.
 */
export interface TelemetryRun {
  config: Readonly<SensorConfig>;
  /** Sensor timestamp = process.hrtime.bigint() + timestampOffsetNs (the clock `timestamp_mode` selects). */
  timestampOffsetNs: bigint;
}

/** Voltage, current, temperature and phase lock of the unit. */
export interface TelemetryHal {
  /** Called at the end of every reinit with the new active run; `null` while nothing runs (reinitializing, rebooting). */
  applyRun(run: TelemetryRun | null): void;
  read(): Promise<TelemetryReading>;
  /** The model's inputs a fault moves (sim); absent on a unit that measures real sensors. */
  readonly faults?: TelemetryFaults;
  close(): Promise<void>;
}
