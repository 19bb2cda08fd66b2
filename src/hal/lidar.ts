import type { SensorConfig, StreamPlan, UdpFaultRule } from '../model/index.js';
import type { PreviewFrame, StreamTotals, ZoneMonitorPlan } from '../udp/index.js';
import type { StreamFaults } from './faults.js';
import type { ZoneHal } from './zones.js';

/** Everything the data plane needs to run the streams of one initialization. */
export interface StreamRun {
  initializationId: number;
  /** The active configuration of this run. */
  config: SensorConfig;
  /** `sensor_info.prod_sn` as an integer (fits 40 bits). */
  serialNumber: bigint;
  /** Product, frame format and column window of `config`, resolved once by the device core. */
  plan: StreamPlan;
  /** Local address the sockets bind to (the HTTP listen address when it is a specific one). */
  bindAddress: string | undefined;
  /** Sensor timestamp = process.hrtime.bigint() + timestampOffsetNs (the clock `timestamp_mode` selects). */
  timestampOffsetNs: bigint;
  /** The live zones of Zone Monitor (firmware 3.2), rendered for this run's frame width; null or absent: none. */
  zones?: ZoneMonitorPlan | null;
}

/** The lidar and IMU data streams. */
export interface LidarHal {
  /**
   * Stop the streams of the previous run and start those of `run`; `null` stops everything.
   * Resolves once no datagram of the previous run can be sent any more.
   */
  apply(run: StreamRun | null): Promise<void>;
  /**
   * Zone Monitor (src/hal/zones.ts): where the core hands the live zones and what watches them. Optional: a
   * data path that cannot watch zones leaves it out, and the zone routes still store the sets.
   */
  readonly zones?: ZoneHal;
  /** The `alert_flags` byte of packet headers (docs/udp-packets.md), pushed whenever the alert log changes. */
  setAlertFlags(flags: number): void;
  /**
   * Bytes 16-19 of lidar packet headers (countdown_thermal_shutdown, countdown_shot_limiting, thermal_shutdown,
   * shot_limiting) as a little-endian u32, pushed as the internal temperature changes. Optional: a data path
   * whose sensor stamps them itself leaves it out.
   */
  setThermalHeader?(bytes16to19: number): void;
  /** Datagram counters per stream since start-up, across reinits (GET /metrics); absent where unknown. */
  streamTotals?(): Promise<StreamTotals>;
  /**
   * Live-view pictures of what the lidar stream sends, a few a second, to `listener` until the returned
   * function is called (null: nothing is sent). Optional: a data path without a picture leaves it out.
   */
  watchPreview?(listener: (frame: PreviewFrame | null) => void): () => void;
  /** The fault-injection UDP rules in force (the live view names one that withholds packets). Optional. */
  udpFaultRules?(): readonly UdpFaultRule[];
  /** What fault injection can do to the streams (src/hal/faults.ts); absent: nothing. */
  readonly faults?: StreamFaults;
  close(): Promise<void>;
}
