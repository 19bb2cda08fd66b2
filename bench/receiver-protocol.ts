/** Messages between the orchestrator and a UDP receiver child (bench/udp-receiver.ts). */
import type { HeaderLayout } from './packet-fields.js';
import type { Spread } from './stats.js';

export interface LidarStreamSpec {
  id: string;
  kind: 'lidar';
  layout: HeaderLayout;
  packetsPerFrame: number;
  /** Nominal packet period, for inter-arrival jitter. */
  periodMs: number;
  /** Keep every inter-arrival time of the window (jitter percentiles); off for cheap counting. */
  recordJitter: boolean;
}

/** An ACCEL32_GYRO32_NMEA IMU stream, counted as a lidar stream is: packets placed by frame id and first sample. */
export interface ImuNmeaStreamSpec extends Omit<LidarStreamSpec, 'kind'> {
  kind: 'imu-nmea';
  /** The lidar frame's columns: each IMU packet covers columnsPerFrame / packetsPerFrame of them. */
  columnsPerFrame: number;
}

/** A port that only swallows datagrams (the IMU stream), so the sensor never gets port-unreachable. */
export interface SinkSpec {
  id: string;
  kind: 'sink';
}

export type ReceiverSpec = LidarStreamSpec | ImuNmeaStreamSpec | SinkSpec;

export interface StreamReport {
  packets: number;
  windowS: number;
  /** Packets per second over the window. */
  rate: number;
  lost: number;
  outOfOrder: number;
  /** |inter-arrival time − nominal period|, milliseconds; null when not recorded or too few packets. */
  jitterMs: Spread | null;
  /** init_ids seen in the window. */
  initIds: number[];
}

export type ToReceiver = { type: 'open'; streams: ReceiverSpec[] } | { type: 'start' } | { type: 'stop' };

export type FromReceiver =
  | { type: 'opened'; ports: Record<string, number> }
  | { type: 'started' }
  | { type: 'stats'; streams: Record<string, StreamReport> }
  /** A lidar packet with an init_id other than the previous packet's; hrtime of its arrival, ns. */
  | { type: 'init'; id: string; initId: number; atNs: string };
