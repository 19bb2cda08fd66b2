import type { SensorConfig, StreamPlan, UdpFaultRule } from '../model/index.js';
import type { PreviewFrame, StreamTotals } from '../udp/index.js';

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
}

/** The lidar and IMU data streams. */
export interface LidarHal {
  /**
   * Stop the streams of the previous run and start those of `run`; `null` stops everything.
   * Resolves once no datagram of the previous run can be sent any more.
   */
  apply(run: StreamRun | null): Promise<void>;
  /** The `alert_flags` byte of packet headers (docs/udp-packets.md), pushed whenever the alert log changes. */
  setAlertFlags(flags: number): void;
  /** Datagram counters per stream since start-up, across reinits (GET /metrics); absent where unknown. */
  streamTotals?(): Promise<StreamTotals>;
  /**
   * Live-view pictures of what the lidar stream sends, a few a second, to `listener` until the returned
   * function is called (null: nothing is sent). Optional: a data path without a picture leaves it out.
   */
  watchPreview?(listener: (frame: PreviewFrame | null) => void): () => void;
  /** The fault-injection UDP rules in force (the live view names one that withholds packets). Optional. */
  udpFaultRules?(): readonly UdpFaultRule[];
  close(): Promise<void>;
}
