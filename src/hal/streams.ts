import type { UdpFaultRule } from '../model/index.js';
import type { PreviewFrame, StreamPlan, StreamTotals } from '../udp/index.js';
import type { StreamFaults } from './faults.js';
import type { ZoneHal } from './zones.js';

/** The data streams of a unit: lidar, IMU and zone packets. */
export interface StreamsHal {
  /**
   * Stop the streams of the previous run and start those `plan` says (src/udp/contract/stream-plan.ts); `null` stops
   * everything. Resolves once no datagram of the previous run can be sent any more.
   */
  apply(plan: StreamPlan | null): Promise<void>;
  /**
   * Zone Monitor (src/hal/zones.ts): where the core hands the live zones and what watches them. Optional: a
   * data path that cannot watch zones leaves it out, and the zone routes still store the sets.
   */
  readonly zones?: ZoneHal;
  /**
   * The `alert_flags` byte of packet headers (docs/udp-packets.md), pushed whenever the alert log changes: the
   * one path of the log's state (active, overflow, cursor) to the packets, whoever raised the alert. The
   * emitter worker sets bit 7 itself while one of its sockets has an alert up (src/udp/worker/emitter-run.ts).
   */
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
