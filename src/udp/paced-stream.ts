/**
 * A stream the pacer drives: it sends whatever its schedule says is due, bounded in how far it catches up.
 */
import type { StreamSchedule } from './schedule.js';

/** Slots later than this are dropped instead of sent in a burst (a unit that stalls loses that data too). */
export const MAX_LAG_MS = 100;

export interface PacedStream {
  /** Starts the stream's schedule at this instant (sensor clock and performance.now() read together). */
  begin(start: { sensorNs: bigint; localMs: number }): void;
  /** performance.now() at which the next packet is due. */
  nextDueMs(): number;
  /** Send every packet due at `nowMs`. */
  sendDue(nowMs: number): void;
}

/**
 * Walks a schedule's slots: `due(nowMs)` yields the range of slots to send now and counts the ones
 * skipped beyond the catch-up bound.
 */
export class SlotCursor {
  next = 0;
  skipped = 0;
  private readonly maxLagSlots: number;

  constructor(readonly schedule: StreamSchedule) {
    this.maxLagSlots = Math.max(1, Math.ceil((MAX_LAG_MS * 1e6) / schedule.slotPeriodNs));
  }

  nextDueMs(): number {
    return this.schedule.dueLocalMs(this.next);
  }

  /** The last slot to send now (inclusive), or `next - 1` when nothing is due; moves `next` past skipped slots. */
  lastDue(nowMs: number): number {
    const last = this.schedule.lastDueSlot(nowMs);
    if (last - this.next >= this.maxLagSlots) {
      const from = last - this.maxLagSlots + 1;
      this.skipped += from - this.next;
      this.next = from;
    }
    return last;
  }
}
