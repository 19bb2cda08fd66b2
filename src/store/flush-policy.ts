/**
 * Where group commit's WAL flush runs: on the event loop or on libuv's thread pool. On a fast disk an
 * fdatasync takes ~0.1 ms of kernel work, and the trip to the thread pool and back costs more CPU than
 * that (120-170 µs on a virtual machine), so the flush runs inline, blocking the loop for as long as it
 * takes. A sensor's eMMC can take 5-20 ms per flush: blocking that long would stall every other
 * request, so slow flushes go to the thread pool.
 *
 * The rule: flushes run inline while the moving average (EWMA, weight 1/8) of inline flush times stays
 * at or below 2 ms. On a disk of 5 ms flushes it is exceeded at the fourth, and a single flush of 15 ms
 * or more exceeds it at once; the occasional 3-10 ms flush of a virtual machine's disk under load does
 * not (there typical flushes take 0.3 ms, p90 ~1 ms). Then flushes run on the thread pool, where their
 * time cannot be told from the pool's and the loop's delays; so now and then one flush runs inline
 * again as a probe (1 s after the switch, the interval doubling after every slow probe, up to 64 s):
 * a probe at or below 2 ms brings flushes back inline. On a slow disk that blocks the loop for one
 * flush a minute at most.
 */
export const INLINE_FLUSH_BOUND_MS = 2;
const EWMA_WEIGHT = 1 / 8;
export const FIRST_PROBE_MS = 1_000;
export const LAST_PROBE_MS = 64_000;

export class FlushPolicy {
  private inlineMode = true;
  /** Moving average of inline flush times (ms); starts at 0: a disk is taken as fast until a flush says otherwise. */
  private average = 0;
  private probeInterval = FIRST_PROBE_MS;
  private nextProbeAt = 0;

  /** `now` in milliseconds (injectable for tests). */
  constructor(private readonly now: () => number = () => performance.now()) {}

  /** Whether the next flush runs inline (in inline mode, or as a due probe). */
  inline(): boolean {
    return this.inlineMode || this.now() >= this.nextProbeAt;
  }

  /** Starts timing an inline flush; pass the result to `inlineDone` after it. */
  start(): number {
    return this.now();
  }

  /** An inline flush that began at `startedAt` is over (successful or not). */
  inlineDone(startedAt: number): void {
    const now = this.now();
    const took = now - startedAt;
    if (!this.inlineMode) {
      // A probe: one fast flush is enough to come back.
      if (took <= INLINE_FLUSH_BOUND_MS) {
        this.inlineMode = true;
        this.average = took;
        this.probeInterval = FIRST_PROBE_MS;
      } else {
        this.probeInterval = Math.min(this.probeInterval * 2, LAST_PROBE_MS);
        this.nextProbeAt = now + this.probeInterval;
      }
      return;
    }
    this.average += (took - this.average) * EWMA_WEIGHT;
    if (this.average > INLINE_FLUSH_BOUND_MS) {
      this.inlineMode = false;
      this.probeInterval = FIRST_PROBE_MS;
      this.nextProbeAt = now + this.probeInterval;
    }
  }
}
