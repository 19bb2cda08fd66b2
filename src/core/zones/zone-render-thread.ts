/**
 * Zone sets are read and rendered in a worker thread (zone-render-worker.ts), one per render: rendering an
 * STL zone costs seconds (docs/benchmarks.md, Zone Monitor), and on the main thread it held every request
 * and the service watchdog's notifications for as long. A render has a time bound: a worker still rendering
 * then is ended, and the set is refused naming the zone it was at (rule render-time).
 */
import type { Worker } from 'node:worker_threads';
import type { ZoneBeams, ZoneProblem } from '../../model/index.js';
import { startWorkerModule } from '../../udp/index.js';
import type { ZoneRenderMessage, ZoneRenderRequest } from './zone-render-protocol.js';
import type { CheckedZoneSet, UnreadableZoneSet } from './zone-set.js';

/** How long a zone set may take to render for one frame width before the unit refuses it. */
export const ZONE_RENDER_TIME_LIMIT_MS = 60_000;

/** The render worker's built file: beside this module's own (in dist/, or tsc's output folder). */
const workerUrl = () => new URL('./zone-render-worker.js', import.meta.url);

/** Renders in worker threads and ends those still running when the unit closes. */
export class ZoneRenderThreads {
  private readonly running = new Set<Worker>();

  constructor(private readonly timeLimitMs = ZONE_RENDER_TIME_LIMIT_MS) {}

  /** `zip` read and rendered for `beams` in a worker: the set, or why it cannot be read or rendered in time. */
  render(zip: Uint8Array, beams: ZoneBeams): Promise<CheckedZoneSet | UnreadableZoneSet> {
    const worker = startWorkerModule(workerUrl());
    this.running.add(worker);
    return new Promise<CheckedZoneSet | UnreadableZoneSet>((resolve) => {
      let zone: number | undefined;
      let answered = false;
      const finish = (result: CheckedZoneSet | UnreadableZoneSet) => {
        if (answered) return;
        answered = true;
        clearTimeout(timer);
        this.running.delete(worker);
        void worker.terminate();
        resolve(result);
      };
      const refuse = (problem: ZoneProblem) => finish({ unreadable: [problem] });
      const timer = setTimeout(
        () =>
          refuse({
            rule: 'render-time',
            zone,
            detail: `${zone === undefined ? 'the zone set' : `zone ${zone}`} did not render within ${this.timeLimitMs / 1000} s for frames ${beams.columnsPerFrame} columns wide (the unit's bound for one zone set); use fewer triangles or zones`,
          }),
        this.timeLimitMs,
      );
      worker.on('message', (message: ZoneRenderMessage) => {
        if (message.type === 'zone') zone = message.zone;
        else finish(message.result);
      });
      worker.on('error', (error: Error) =>
        refuse({ rule: 'render-time', zone, detail: `rendering stopped: ${error.message}` }),
      );
      worker.on('exit', () =>
        refuse({ rule: 'render-time', zone, detail: 'the render worker ended before it answered' }),
      );
      worker.postMessage({ zip, beams } satisfies ZoneRenderRequest);
    });
  }

  /** Ends every render still running (the unit closes). */
  async close(): Promise<void> {
    await Promise.all([...this.running].map((worker) => worker.terminate()));
    this.running.clear();
  }
}
