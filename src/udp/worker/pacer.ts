/**
 * The emitter's clock: one for every stream of every unit in the worker. It wakes when the next packet
 * of any stream is due and lets every stream send what is due then, so units whose packets fall due
 * together (frames sit on the sensor clock's grid), or while the last ones were being sent, share one
 * wake-up.
 *
 * Node timers have millisecond granularity, too coarse for packets 0.78 ms apart. Long waits use
 * setTimeout and wake a little early; the last stretch (under WAIT_WINDOW_MS) is slept with
 * Atomics.wait, which blocks this worker thread with sub-millisecond precision without spinning.
 *
 * Packets 1-2 ms apart are sent from one pass of the event loop: a pass per packet (setImmediate,
 * epoll, the callback scope and its tick queue) cost about as much as the send itself, and a fleet's
 * process model pays it in every unit. The loop is left when the main thread notifies (a message is
 * waiting), before a sleep long enough for a timer, and at least every LOOP_BUDGET_MS, so socket
 * events, send callbacks and the thread's own timers still run within a few milliseconds.
 */

/** What the pacer drives: a synthetic stream (PacedStream) or a recording's replay (ReplayStream). */
export interface PacedSource {
  /** performance.now() at which the next packet is due (Infinity: nothing more to send). */
  nextDueMs(): number;
  /** Send every packet due at `nowMs`. */
  sendDue(nowMs: number): void;
}

const WAIT_WINDOW_MS = 2;
/** Longest stretch of short sleeps and sends in one pass of the event loop. */
const LOOP_BUDGET_MS = 8;

export class Pacer {
  private sources: PacedSource[] = [];
  private timer: NodeJS.Timeout | null = null;
  private immediate: NodeJS.Immediate | null = null;

  /**
   * @param wake an Int32Array slot shared with the main thread, which notifies it to cut a sleep short
   */
  constructor(private readonly wake: { array: Int32Array; index: number }) {}

  /** Drives these sources from now on (their schedules have begun). */
  add(sources: readonly PacedSource[]): void {
    if (sources.length === 0) return;
    this.sources = [...this.sources, ...sources];
    // A newcomer may be due before the pending wake-up.
    this.cancel();
    this.immediate = setImmediate(this.tick);
  }

  /** Synchronous: once it returns, none of these sources is driven any more. */
  remove(sources: readonly PacedSource[]): void {
    this.sources = this.sources.filter((s) => !sources.includes(s));
    if (this.sources.length === 0) this.cancel();
  }

  private cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.immediate) clearImmediate(this.immediate);
    this.timer = null;
    this.immediate = null;
  }

  private readonly tick = () => {
    this.timer = null;
    this.immediate = null;
    const leaveAt = performance.now() + LOOP_BUDGET_MS;
    for (;;) {
      const sources = this.sources;
      if (sources.length === 0) return;
      // Never early: a packet leaves at or after the instant its timestamps say (an IMU sample is stamped
      // with the end of its period), so only packets already due share this wake-up.
      const now = performance.now();
      let next = Infinity;
      for (let i = 0; i < sources.length; i++) {
        const s = sources[i];
        s.sendDue(now);
        const due = s.nextDueMs();
        if (due < next) next = due;
      }
      if (next === Infinity) return; // only replays that have sent their last packet
      const wait = next - performance.now();
      if (wait > WAIT_WINDOW_MS) {
        this.timer = setTimeout(this.tick, Math.floor(wait - WAIT_WINDOW_MS / 2));
        return;
      }
      // 'ok': the main thread notified, a message waits for the event loop.
      if (wait > 0 && Atomics.wait(this.wake.array, this.wake.index, 0, wait) === 'ok') break;
      if (performance.now() >= leaveAt) break;
    }
    this.immediate = setImmediate(this.tick);
  };
}
