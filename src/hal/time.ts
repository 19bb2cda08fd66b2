import type { SensorConfig } from '../config/registry.js';

/** System clock, time daemon tracking, PTP data sets and the sensor timestamp clock. */
export interface TimeHal {
  /** Offset such that sensor timestamp ns = process.hrtime.bigint() + offset, for the clock `config.timestamp_mode` selects. */
  timestampOffsetNs(config: SensorConfig): bigint;
  close(): Promise<void>;
}
