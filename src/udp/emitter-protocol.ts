/**
 * What the main thread and the emitter worker say to each other. Plain structured-clone data only.
 */
import type { FullScaleRange, LidarProfile, UdpFaultRule } from '../model/index.js';
import type { ReturnSettings } from './lidar-image.js';
import type { ReplaySourcePlan } from './replay/replay-stream.js';
import type { BeamGeometry } from './scene.js';
import type { AlertEvent, StreamAlertIds } from './stream-alerts.js';
import type { UdpFaultCount } from './udp-fault-filter.js';
import type { EmitterStats, StreamTotals } from './stream-totals.js';
import type { PreviewFrame } from './preview-frame.js';

// Counters and alert events live beside the code that makes them (no import cycle with udp-target).
export type { EmitterStats, StreamStats } from './stream-totals.js';
export type { AlertEvent } from './stream-alerts.js';

export interface LidarStreamPlan {
  host: string;
  port: number;
  profile: LidarProfile;
  columnsPerFrame: number;
  frameRateHz: number;
  /** Inclusive `[first, last]` measurement ids to send. */
  columnWindow: [number, number];
  /**
   * Scene casting input. `geometry.columnsPerFrame` is the finest frame width of the product (a
   * multiple of every mode's), so one cast serves every lidar mode.
   */
  geometry: BeamGeometry;
  /** Identifies `geometry`: equal keys share one cast of the scene. */
  sceneKey: string;
  returns: ReturnSettings;
  alerts: StreamAlertIds;
}

export interface ImuStreamPlan {
  host: string;
  port: number;
  accelFsr: FullScaleRange;
  gyroFsr: FullScaleRange;
  alerts: StreamAlertIds;
}

/** Everything the worker needs to run the streams of one initialization; a stream that is off is null. */
export interface EmitterPlan {
  initId: number;
  serialNumber: bigint;
  /** Local address to bind sockets to; undefined = any. */
  bindAddress: string | undefined;
  /** Sensor timestamp = process.hrtime.bigint() + timestampOffsetNs. */
  timestampOffsetNs: bigint;
  lidar: LidarStreamPlan | null;
  imu: ImuStreamPlan | null;
  /** A recording replayed instead of the synthetic scene (lidar and imu are then null). */
  replay?: ReplayPlan;
}

/** The destinations of a replay and what to replay. */
export interface ReplayPlan {
  lidar: { host: string; port: number; alerts: StreamAlertIds } | null;
  imu: { host: string; port: number; alerts: StreamAlertIds } | null;
  source: ReplaySourcePlan;
}

export type ToWorker =
  | { type: 'apply'; seq: number; plan: EmitterPlan | null }
  | { type: 'stats'; seq: number }
  /** Fault injection: the UDP rules from now on (empty: none). */
  | { type: 'faults'; rules: UdpFaultRule[] }
  /** Counters since the worker started, across runs (src/udp/stream-totals.ts). */
  | { type: 'totals'; seq: number }
  /** The live view's tap (src/udp/preview-tap.ts): on while somebody watches. */
  | { type: 'preview'; on: boolean }
  | { type: 'close' };

export type FromWorker =
  | { type: 'ready' }
  | { type: 'applied'; seq: number; error?: string }
  | { type: 'stats'; seq: number; stats: EmitterStats }
  | { type: 'alert'; runSeq: number; event: AlertEvent }
  | { type: 'faultCounts'; counts: UdpFaultCount[]; spent: string[] }
  | { type: 'totals'; seq: number; totals: StreamTotals }
  | { type: 'preview'; frame: PreviewFrame | null };

/** Layout of the SharedArrayBuffer both threads hold (Int32 slots). */
export const SHARED_ALERT_FLAGS = 0;
/** Slot the worker sleeps on between closely spaced packets; the main thread notifies it to hurry a message. */
export const SHARED_WAKE = 1;
/**
 * Bytes 16-19 of the lidar packet header as one little-endian u32 (docs/udp-packets.md): countdown_thermal_shutdown,
 * countdown_shot_limiting, thermal_shutdown, shot_limiting.
 */
export const SHARED_THERMAL_HEADER = 2;
export const SHARED_SLOTS = 3;
