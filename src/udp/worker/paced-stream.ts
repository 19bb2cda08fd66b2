/**
 * A stream the pacer drives: it sends whatever its schedule says is due, bounded in how far it catches up.
 */
import { StreamSchedule } from './schedule.js';
import type { UdpTarget } from './udp-target.js';

/** Slots later than this are dropped instead of sent in a burst (a unit that stalls loses that data too). */
export const MAX_LAG_MS = 100;

/**
 * The walk over a stream's schedule, shared by the lidar and IMU streams: a stream says how its slots
 * are laid out (frame period, slots per frame) and what to send for one slot; this class decides when.
 */
export abstract class PacedStream {
  private cursor: SlotCursor | undefined;

  constructor(protected readonly target: UdpTarget) {}

  /** Duration of one frame of this stream and how many packets (slots) it has. */
  protected abstract readonly framePeriodNs: number;
  protected abstract readonly slotsPerFrame: number;

  /** Sends (or, for a packet outside the column window, skips) slot `slot` of `schedule`. */
  protected abstract sendSlot(slot: number, schedule: StreamSchedule): void;

  /** Starts the stream's schedule at this instant (sensor clock and performance.now() read together). */
  begin(start: { sensorNs: bigint; localMs: number }): void {
    this.cursor = new SlotCursor(
      new StreamSchedule(this.framePeriodNs, this.slotsPerFrame, start.sensorNs, start.localMs),
    );
  }

  /** performance.now() at which the next packet is due. */
  nextDueMs(): number {
    return this.started().nextDueMs();
  }

  /** Send every packet due at `nowMs`. */
  sendDue(nowMs: number): void {
    const c = this.started();
    const last = c.lastDue(nowMs);
    this.target.stats.skipped = c.skipped;
    for (; c.next <= last; c.next++) this.sendSlot(c.next, c.schedule);
  }

  private started(): SlotCursor {
    if (!this.cursor) throw new Error('a paced stream must begin() before it is driven');
    return this.cursor;
  }
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
