/**
 * Where group commit's WAL flush runs: on the event loop or on libuv's thread pool. On a fast disk an
 * fdatasync takes well under a millisecond, and the trip to the thread pool and back costs more CPU than the
 * flush's own kernel work (docs/benchmarks.md, the durable write's CPU), so the flush runs inline, blocking the
 * loop for as long as it takes. A sensor's eMMC can take many milliseconds per flush: blocking that long would
 * stall every other request, so slow flushes go to the thread pool.
 *
 * The rule: flushes run inline while at most half of the last 16 inline flushes took more than 2 ms
 * (their median is at most 2 ms). A disk whose typical flush is slow crosses it at the ninth slow flush;
 * the tail of a fast disk does not (a shared virtual machine's disk is fast typically but slow at its
 * p99, in bursts that a moving average took for a slow disk: docs/benchmarks.md, figures behind design choices). Then flushes
 * run on the thread pool, where their time cannot be told from the pool's and the loop's delays; so now
 * and then one flush runs inline again as a probe (1 s after the switch, the interval doubling after
 * every slow probe, up to 64 s): a probe of at most 2 ms brings flushes back inline. On a slow disk that
 * blocks the loop for one flush a minute at most.
 */
export const INLINE_FLUSH_BOUND_MS = 2;
/** How many of the last inline flushes are remembered, and how many of them may be slow. */
export const FLUSH_WINDOW = 16;
const WINDOW_MASK = (1 << FLUSH_WINDOW) - 1;
const MOST_SLOW = FLUSH_WINDOW / 2;
export const FIRST_PROBE_MS = 1_000;
export const LAST_PROBE_MS = 64_000;

/** How many bits of `bits` are set. */
function ones(bits: number): number {
  let count = 0;
  for (let rest = bits; rest; rest &= rest - 1) count++;
  return count;
}

export class FlushPolicy {
  private inlineMode = true;
  /** One bit per recent inline flush, the newest lowest: set when it was slow. Starts all fast. */
  private slow = 0;
  private probeInterval = FIRST_PROBE_MS;
  private nextProbeAt = 0;

  /** `now` in milliseconds (injectable for tests). */
  constructor(private readonly now: () => number = () => performance.now()) {}

  /** Whether the next flush runs inline (in inline mode, or as a due probe). */
  inline(): boolean {
    return this.inlineMode || this.now() >= this.nextProbeAt;
  }

  /** Runs an inline flush and counts its time, whether it succeeds or throws (a throw passes on). */
  timeInline(flush: () => void): void {
    const startedAt = this.now();
    try {
      flush();
    } finally {
      this.inlineDone(startedAt);
    }
  }

  /** An inline flush that began at `startedAt` is over (successful or not). */
  private inlineDone(startedAt: number): void {
    const now = this.now();
    const wasSlow = now - startedAt > INLINE_FLUSH_BOUND_MS;
    if (!this.inlineMode) {
      // A probe: one fast flush is enough to come back, with a clean slate.
      if (!wasSlow) {
        this.inlineMode = true;
        this.slow = 0;
        this.probeInterval = FIRST_PROBE_MS;
      } else {
        this.probeInterval = Math.min(this.probeInterval * 2, LAST_PROBE_MS);
        this.nextProbeAt = now + this.probeInterval;
      }
      return;
    }
    this.slow = ((this.slow << 1) | (wasSlow ? 1 : 0)) & WINDOW_MASK;
    if (ones(this.slow) > MOST_SLOW) {
      this.inlineMode = false;
      this.probeInterval = FIRST_PROBE_MS;
      this.nextProbeAt = now + this.probeInterval;
    }
  }
}
