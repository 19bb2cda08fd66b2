/**
 * A full garbage collection of this thread's heap, on demand.
 *
 * Why: each run of the emitter holds its frame image and packet templates (several MB of ArrayBuffers
 * per configuration). At a reinit they become garbage, but V8 collects external memory only after it
 * has grown by tens of MB since the last collection: a unit whose configuration changes often (a
 * fuzzer, a test rig, the web page's form) would carry tens of MB of dead runs
 * (docs/benchmarks.md, figures behind design choices). The emitter worker
 * collects when a run ends and dead buffers pass a bound, at a moment no packet is due.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let gc: (() => void) | undefined;
let looked = false;

export function collectGarbage(): void {
  if (!looked) {
    looked = true;
    // `gc` is exposed to contexts created after the flag is set; the flag itself is process-wide and
    // harmless (it only adds a global function to new contexts).
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('typeof gc === "function" ? gc : undefined') as (() => void) | undefined;
  }
  gc?.();
}
