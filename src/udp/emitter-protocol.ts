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
import type { SceneObjectPlan } from './scene-objects.js';

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
  /** Row-major 4x4, translation in mm: objects put into the scene are given in the sensor frame. */
  lidarToSensor: number[];
  /** Where zone packets go (udp_dest_zm:udp_port_zm); null: none are sent. */
  zones: { host: string; port: number; alerts: StreamAlertIds } | null;
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
  /** Where the recorded zone packets go (udp_dest_zm:udp_port_zm); null or absent: none are sent. */
  zones?: { host: string; port: number; alerts: StreamAlertIds } | null;
  source: ReplaySourcePlan;
}

/**
 * One worker serves every unit of a process (src/udp/emitter-host.ts): each message names its unit, and
 * a unit's messages are handled one after the other, apart from the other units'.
 */
export type ToWorker =
  /** A unit joins: `flags` is its Int32 slot of the `alert_flags` byte (SHARED_ALERT_FLAGS), written by the main thread. */
  | { type: 'attach'; unit: number; flags: SharedArrayBuffer }
  | { type: 'apply'; unit: number; seq: number; plan: EmitterPlan | null }
  | { type: 'stats'; unit: number; seq: number }
  /** Fault injection: the UDP rules from now on (empty: none). */
  | { type: 'faults'; unit: number; rules: UdpFaultRule[] }
  /** Counters since the unit joined this worker, across runs (src/udp/stream-totals.ts). */
  | { type: 'totals'; unit: number; seq: number }
  /** Zone Monitor's live zones from now on, for this run and the next ones (null: none). */
  | { type: 'zones'; unit: number; plan: ZoneMonitorPlan | null }
  /** Fault injection: the objects in the scene from now on (src/udp/scene-objects.ts). */
  | { type: 'objects'; unit: number; objects: SceneObjectPlan[] }
  /** The live view's tap (src/udp/preview-tap.ts): on while somebody watches. */
  | { type: 'preview'; unit: number; on: boolean }
  /** Fault injection: the unit's part of the worker dies as in a crash (its runs and counters are gone). */
  | { type: 'crash'; unit: number; seq: number }
  /** The unit leaves: its streams stop before the answer. */
  | { type: 'detach'; unit: number; seq: number }
  /** The last unit has left: the worker ends. */
  | { type: 'close' };

export type FromWorker =
  | { type: 'ready' }
  | { type: 'applied'; unit: number; seq: number; error?: string }
  | { type: 'stats'; unit: number; seq: number; stats: EmitterStats }
  | { type: 'alert'; unit: number; runSeq: number; event: AlertEvent }
  | { type: 'faultCounts'; unit: number; counts: UdpFaultCount[]; spent: string[] }
  | { type: 'totals'; unit: number; seq: number; totals: StreamTotals }
  | { type: 'preview'; unit: number; frame: PreviewFrame | null }
  | { type: 'done'; unit: number; seq: number };

/** Slot of a unit's own SharedArrayBuffer: the `alert_flags` byte of its packets. */
export const SHARED_ALERT_FLAGS = 0;
/** Slot of a unit's own SharedArrayBuffer: header bytes 16-19 of its lidar packets as one little-endian u32
 * (docs/udp-packets.md): countdown_thermal_shutdown, countdown_shot_limiting, thermal_shutdown, shot_limiting. */
export const SHARED_THERMAL_HEADER = 1;
/** Int32 slots of a unit's own SharedArrayBuffer. */
export const UNIT_SLOTS = 2;
/** Slot of the worker's SharedArrayBuffer it sleeps on between closely spaced packets; the main thread notifies it to hurry a message. */
export const SHARED_WAKE = 0;

/** One live zone as the data plane watches it (src/udp/zone-watch.ts). */
export interface LiveZonePlan {
  /** The zone's id in its set. */
  id: number;
  /** trigger_type of zone packets: 1 OCCUPANCY, 2 VACANCY. */
  triggerType: 1 | 2;
  pointCount: number;
  frameCount: number;
  /**
   * The zone's near/far ranges (mm) at the rays `m * pixels + p` that cross it, for frames `columns` wide;
   * null when the zone has no images for this frame width (a ZRB set of another lidar_mode): the zone is
   * then reported with an error flag and never triggers.
   */
  images: { columns: number; rays: Uint32Array; nearMm: Uint32Array; farMm: Uint32Array } | null;
}

/** The live zones of the active zone set (firmware 3.2's Zone Monitor), in live_ids order. */
export interface ZoneMonitorPlan {
  /** SHA-256 of the active zone set zip: live_zoneset_hash of zone packets. */
  hash: Uint8Array;
  zones: LiveZonePlan[];
}
