/**
 * Entry of the emitter worker thread: runs the streams of the active initialization of every unit of
 * the process (../main-thread/emitter-host.ts), away from the main event loop, so HTTP and SQLite work cannot delay
 * packets. A unit's messages are handled one after the other: an apply stops the old run completely
 * before the new one starts, so datagrams of two initializations never interleave.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import type { AlertEvent } from '../contract/alert-ids.js';
import type { SceneObjectPlan } from '../contract/scene-plan.js';
import {
  type FromWorker,
  SHARED_ALERT_FLAGS,
  SHARED_THERMAL_HEADER,
  SHARED_WAKE,
  type ToWorker,
} from '../contract/thread-messages.js';
import { EmitterRun } from './emitter-run.js';
import { Pacer } from './pacer.js';
import type { UdpFaultHook } from './udp-fault-filter.js';
import { setUdpFaultRules } from './set-udp-fault-rules.js';
import { faultFrameRateHz } from '../../model/index.js';
import { addRun, emptyTotals } from '../contract/stream-totals.js';
import { PreviewTap } from './preview-tap.js';
import { collectGarbage } from './collect-garbage.js';

if (!parentPort) throw new Error('emitter-worker must run as a worker thread');
const port: MessagePort = parentPort;

/** Nice value of the emitter thread: ahead of HTTP and SQLite work when the host is busy. */
const EMITTER_NICE = -10;

/**
 * On Linux, setpriority() on a thread id changes that thread only: the emitter thread gets a larger
 * share of a busy CPU than the main thread serving HTTP. Needs root or CAP_SYS_NICE; without them
 * the default priority stays (enough on an idle host).
 */
function raiseThreadPriority(): void {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, EMITTER_NICE);
  } catch {
    // Not Linux, or not permitted.
  }
}

raiseThreadPriority();
const wakeSlot = new Int32Array((workerData as { wake: SharedArrayBuffer }).wake);
const post = (message: FromWorker) => port.postMessage(message);
/** One clock for the streams of every unit in this thread. */
const pacer = new Pacer({ array: wakeSlot, index: SHARED_WAKE });

/**
 * ArrayBuffer bytes of this thread above which an ended run's buffers are collected at once
 * (collect-garbage.ts): the cached scene plus about one dead run of the widest format (2048 columns,
 * 128 channels, dual return). Below it V8 collects in its own time, and a reinit does not pay for a full
 * collection (docs/benchmarks.md, figures behind design choices); above it a unit whose configuration keeps changing would hoard dead runs.
 */
const DEAD_RUNS_BOUND_BYTES = 16 * 1024 * 1024;

/** What the worker holds of one unit: its running streams, counters, live-view tap and fault rules. */
class HostedEmitter {
  run: EmitterRun | null = null;
  /** Counters of the runs that have ended (the running one is added when asked). */
  finished = emptyTotals();
  /** The unit's messages, one after the other (an apply stops the old run completely before the new one starts). */
  queue: Promise<void> = Promise.resolve();
  readonly faults: UdpFaultHook = { filter: null };
  /** Objects fault injection has put into the scene. */
  objects: SceneObjectPlan[] = [];
  /** The lidar frame rate this unit's UDP fault rules set (frame_rate), for this run and the next ones; undefined: none. */
  faultFrameRate: number | undefined;
  readonly preview: PreviewTap;
  private readonly flags: Int32Array;

  constructor(
    readonly emitterId: number,
    flags: SharedArrayBuffer,
  ) {
    this.flags = new Int32Array(flags);
    this.preview = new PreviewTap(
      () => this.run?.previewSource() ?? null,
      (frame) => post({ type: 'preview', emitterId, frame }),
    );
  }

  readonly alertFlags = () => Atomics.load(this.flags, SHARED_ALERT_FLAGS);
  readonly thermalHeader = () => Atomics.load(this.flags, SHARED_THERMAL_HEADER);

  /** Ends the running run, keeping its counters. */
  endRun(): void {
    if (!this.run) return;
    this.run.stop();
    this.finished = addRun(this.finished, this.run.stats());
    this.run = null;
    if (process.memoryUsage().arrayBuffers > DEAD_RUNS_BOUND_BYTES) collectGarbage();
  }

  /** Stops everything of this unit: nothing of it leaves after this. */
  end(): void {
    this.preview.set(false);
    setUdpFaultRules(this.faults, [], () => undefined);
    this.endRun();
  }
}

const emitters = new Map<number, HostedEmitter>();

async function handle(streams: HostedEmitter, message: ToWorker): Promise<void> {
  const emitterId = streams.emitterId;
  switch (message.type) {
    case 'apply': {
      streams.endRun();
      if (message.plan) {
        const seq = message.seq;
        try {
          streams.run = await EmitterRun.start(message.plan, {
            alertFlags: streams.alertFlags,
            thermalHeader: streams.thermalHeader,
            report: (event: AlertEvent) => post({ type: 'alert', emitterId, runSeq: seq, event }),
            pacer,
            faults: streams.faults,
            objects: streams.objects,
          });
          if (streams.faultFrameRate !== undefined) streams.run.setLidarFrameRate(streams.faultFrameRate);
        } catch (err) {
          post({ type: 'applied', emitterId, seq, error: err instanceof Error ? err.message : String(err) });
          return;
        }
      }
      post({ type: 'applied', emitterId, seq: message.seq });
      return;
    }
    case 'stats':
      post({
        type: 'stats',
        emitterId,
        seq: message.seq,
        stats: streams.run?.stats() ?? { initId: null, lidar: null, imu: null },
      });
      return;
    case 'faults':
      setUdpFaultRules(streams.faults, message.rules, (counts, spent) =>
        post({ type: 'faultCounts', emitterId, counts, spent }),
      );
      streams.faultFrameRate = faultFrameRateHz(message.rules);
      streams.run?.setLidarFrameRate(streams.faultFrameRate);
      return;
    case 'zones':
      // The next run brings its own, with its plan.
      streams.run?.setZones(message.plan);
      return;
    case 'objects':
      streams.objects = message.objects;
      streams.run?.setObjects(message.objects);
      return;
    case 'totals':
      post({
        type: 'totals',
        emitterId,
        seq: message.seq,
        totals: addRun(streams.finished, streams.run?.stats() ?? null),
      });
      return;
    case 'preview':
      streams.preview.set(message.on);
      return;
    case 'crash':
    case 'detach':
      streams.end();
      emitters.delete(emitterId);
      post({ type: 'done', emitterId, seq: message.seq });
      return;
  }
}

port.on('message', (message: ToWorker) => {
  if (message.type === 'close') {
    for (const streams of emitters.values()) streams.end();
    emitters.clear();
    port.close();
    return;
  }
  if (message.type === 'attach') {
    if (!emitters.has(message.emitterId))
      emitters.set(message.emitterId, new HostedEmitter(message.emitterId, message.flags));
    return;
  }
  const streams = emitters.get(message.emitterId);
  if (!streams) return; // a emitterId that has left (its answer was sent then)
  streams.queue = streams.queue.then(() => handle(streams, message));
});
post({ type: 'ready' });
