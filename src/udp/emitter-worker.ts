/**
 * Entry of the emitter worker thread: runs the streams of the active initialization, away from the
 * main event loop, so HTTP and SQLite work cannot delay packets. Messages are handled one after the
 * other: an apply stops the old run completely before the new one starts, so datagrams of two
 * initializations never interleave.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import {
  type AlertEvent,
  type FromWorker,
  SHARED_ALERT_FLAGS,
  SHARED_THERMAL_HEADER,
  SHARED_WAKE,
  type ToWorker,
} from './emitter-protocol.js';
import { EmitterRun } from './emitter-run.js';
import { setUdpFaultRules } from './udp-fault-worker.js';
import { faultFrameRateHz } from '../model/index.js';
import { addRun, emptyTotals } from './stream-totals.js';
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
const shared = new Int32Array((workerData as { shared: SharedArrayBuffer }).shared);
const post = (message: FromWorker) => port.postMessage(message);

let run: EmitterRun | null = null;
/** The lidar frame rate UDP fault rules set (frame_rate), for this run and the next ones; undefined: none. */
let faultFrameRate: number | undefined;
/** Counters of the runs that have ended (the running one is added when asked). */
let finished = emptyTotals();

/**
 * ArrayBuffer bytes of this thread above which an ended run's buffers are collected at once
 * (collect-garbage.ts): the cached scene plus about one dead run of the widest format (2048 columns,
 * 128 channels, dual return). Below it V8 collects in its own time, and a reinit does not pay the ~20 ms of a
 * full collection; above it a unit whose configuration keeps changing would hoard dead runs.
 */
const DEAD_RUNS_BOUND_BYTES = 16 * 1024 * 1024;

/** Ends the running run, keeping its counters. */
function endRun(): void {
  if (!run) return;
  run.stop();
  finished = addRun(finished, run.stats());
  run = null;
  if (process.memoryUsage().arrayBuffers > DEAD_RUNS_BOUND_BYTES) collectGarbage();
}
let queue: Promise<void> = Promise.resolve();
const preview = new PreviewTap(
  () => run?.previewSource() ?? null,
  (frame) => post({ type: 'preview', frame }),
);

async function handle(message: ToWorker): Promise<void> {
  switch (message.type) {
    case 'apply': {
      endRun();
      if (message.plan) {
        const seq = message.seq;
        try {
          run = await EmitterRun.start(message.plan, {
            alertFlags: () => Atomics.load(shared, SHARED_ALERT_FLAGS),
            thermalHeader: () => Atomics.load(shared, SHARED_THERMAL_HEADER),
            report: (event: AlertEvent) => post({ type: 'alert', runSeq: seq, event }),
            wake: { array: shared, index: SHARED_WAKE },
          });
          if (faultFrameRate !== undefined) run.setLidarFrameRate(faultFrameRate);
        } catch (err) {
          post({ type: 'applied', seq, error: err instanceof Error ? err.message : String(err) });
          return;
        }
      }
      post({ type: 'applied', seq: message.seq });
      return;
    }
    case 'stats':
      post({ type: 'stats', seq: message.seq, stats: run?.stats() ?? { initId: null, lidar: null, imu: null } });
      return;
    case 'faults':
      setUdpFaultRules(message.rules, (counts, spent) => post({ type: 'faultCounts', counts, spent }));
      faultFrameRate = faultFrameRateHz(message.rules);
      run?.setLidarFrameRate(faultFrameRate);
      return;
    case 'totals':
      post({ type: 'totals', seq: message.seq, totals: addRun(finished, run?.stats() ?? null) });
      return;
    case 'preview':
      preview.set(message.on);
      return;
    case 'close':
      preview.set(false);
      setUdpFaultRules([], () => undefined);
      endRun();
      port.close();
      return;
  }
}

port.on('message', (message: ToWorker) => {
  queue = queue.then(() => handle(message));
});
post({ type: 'ready' });
