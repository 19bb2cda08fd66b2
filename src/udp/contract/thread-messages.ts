/**
 * What the main thread and the emitter worker say to each other. Plain structured-clone data only.
 */
import type { UdpFaultRule } from '../../model/index.js';
import type { AlertEvent } from './alert-ids.js';
import type { PreviewFrame } from './preview.js';
import type { SceneObjectPlan } from './scene-plan.js';
import type { StreamPlan } from './stream-plan.js';
import type { EmitterStats, StreamTotals } from './stream-totals.js';
import type { UdpFaultCount } from './udp-fault-counts.js';
import type { ZoneMonitorPlan } from './zone-plan.js';

/**
 * One worker serves every unit of a process (src/udp/main-thread/emitter-host.ts): each message names its unit's emitter (`emitterId`), and
 * a unit's messages are handled one after the other, apart from the other units'.
 */
export type ToWorker =
  /** A unit joins: `flags` is its Int32 slot of the `alert_flags` byte (SHARED_ALERT_FLAGS), written by the main thread. */
  | { type: 'attach'; emitterId: number; flags: SharedArrayBuffer }
  | { type: 'apply'; emitterId: number; seq: number; plan: StreamPlan | null }
  | { type: 'stats'; emitterId: number; seq: number }
  /** Fault injection: the UDP rules from now on (empty: none). */
  | { type: 'faults'; emitterId: number; rules: UdpFaultRule[] }
  /** Counters since the unit joined this worker, across runs (stream-totals.ts). */
  | { type: 'totals'; emitterId: number; seq: number }
  /** Zone Monitor's live zones changed between initializations: the running plan's from now on (null: none). */
  | { type: 'zones'; emitterId: number; plan: ZoneMonitorPlan | null }
  /** Fault injection: the objects in the scene from now on (src/udp/scene/scene-objects.ts). */
  | { type: 'objects'; emitterId: number; objects: SceneObjectPlan[] }
  /** The live view's tap (src/udp/worker/preview-tap.ts): on while somebody watches. */
  | { type: 'preview'; emitterId: number; on: boolean }
  /** Fault injection: the unit's part of the worker dies as in a crash (its runs and counters are gone). */
  | { type: 'crash'; emitterId: number; seq: number }
  /** The unit leaves: its streams stop before the answer. */
  | { type: 'detach'; emitterId: number; seq: number }
  /** The last unit has left: the worker ends. */
  | { type: 'close' };

export type FromWorker =
  | { type: 'ready' }
  | { type: 'applied'; emitterId: number; seq: number; error?: string }
  | { type: 'stats'; emitterId: number; seq: number; stats: EmitterStats }
  | { type: 'alert'; emitterId: number; runSeq: number; event: AlertEvent }
  | { type: 'faultCounts'; emitterId: number; counts: UdpFaultCount[]; spent: string[] }
  | { type: 'totals'; emitterId: number; seq: number; totals: StreamTotals }
  | { type: 'preview'; emitterId: number; frame: PreviewFrame | null }
  | { type: 'done'; emitterId: number; seq: number };

/** Slot of a unit's own SharedArrayBuffer: the `alert_flags` byte of its packets. */
export const SHARED_ALERT_FLAGS = 0;
/** Slot of a unit's own SharedArrayBuffer: header bytes 16-19 of its lidar packets as one little-endian u32
 * (docs/udp-packets.md): countdown_thermal_shutdown, countdown_shot_limiting, thermal_shutdown, shot_limiting. */
export const SHARED_THERMAL_HEADER = 1;
/** Int32 slots of a unit's own SharedArrayBuffer. */
export const EMITTER_SLOTS = 2;
/** Slot of the worker's SharedArrayBuffer it sleeps on between closely spaced packets; the main thread notifies it to hurry a message. */
export const SHARED_WAKE = 0;
