/**
 * The emitter's clock: wakes when the next packet of any stream is due and lets the streams send.
 *
 * Node timers have millisecond granularity, too coarse for packets 0.78 ms apart. Long waits use
 * setTimeout and wake a little early; the last stretch (under WAIT_WINDOW_MS) is slept with
 * Atomics.wait, which blocks this worker thread with sub-millisecond precision without spinning, and
 * the loop then yields through setImmediate so socket events and messages are still handled.
 */

/** What the pacer drives: a synthetic stream (PacedStream) or a recording's replay (ReplayStream). */
export interface PacedSource {
  /** performance.now() at which the next packet is due (Infinity: nothing more to send). */
  nextDueMs(): number;
  /** Send every packet due at `nowMs`. */
  sendDue(nowMs: number): void;
}

const WAIT_WINDOW_MS = 2;

export class Pacer {
  private timer: NodeJS.Timeout | null = null;
  private immediate: NodeJS.Immediate | null = null;
  private stopped = false;

  /**
   * @param wake an Int32Array slot shared with the main thread, which notifies it to cut a sleep short
   */
  constructor(
    private readonly streams: readonly PacedSource[],
    private readonly wake: { array: Int32Array; index: number },
  ) {}

  start(): void {
    this.tick();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.immediate) clearImmediate(this.immediate);
  }

  private readonly tick = () => {
    this.timer = null;
    this.immediate = null;
    if (this.stopped || this.streams.length === 0) return;
    const now = performance.now();
    let next = Infinity;
    for (const s of this.streams) {
      s.sendDue(now);
      next = Math.min(next, s.nextDueMs());
    }
    if (next === Infinity) return; // a replay that has sent its last packet
    const wait = next - performance.now();
    if (wait > WAIT_WINDOW_MS) {
      this.timer = setTimeout(this.tick, Math.floor(wait - WAIT_WINDOW_MS / 2));
      return;
    }
    if (wait > 0) Atomics.wait(this.wake.array, this.wake.index, 0, wait);
    this.immediate = setImmediate(this.tick);
  };
}
