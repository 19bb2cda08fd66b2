/**
 * A reference model of the spec's alert rules, written independently of src/alerts: it keeps the
 * whole history of events on an unbounded timeline (absolute event numbers, never wrapping) and
 * answers queries from that, reducing to u32 cursors only at the edge.
 *
 * Rules as the model states them:
 * - the log is the last 32 events; an event's cursor is its absolute number mod 2^32; next_cursor
 *   is the absolute number of the next event mod 2^32;
 * - no cursor: the whole log;
 * - otherwise the client's cursor names the most recent position P <= now whose number mod 2^32 is
 *   the cursor. When P is one of the log's events or now (the client saved next_cursor), the answer is
 *   the log events numbered >= P (cursor 0 with next_cursor 0 after a wrap gives P = now: nothing);
 *   when P is older than the log's oldest event (the gap of a log not yet full, events lost to the
 *   FIFO, or a cursor ahead of next_cursor, which names a position four billion events ago), the
 *   whole log (rule 4, second sentence).
 */
const MOD = 2 ** 32;
const LOG_SIZE = 32;

export interface ModelEvent {
  /** Absolute event number (no wrap). */
  n: number;
  id: string;
  active: boolean;
}

export interface ModelAnswer {
  active: { cursor: number; id: string }[];
  log: { cursor: number; id: string; active: boolean }[];
  next_cursor: number;
}

export class AlertModel {
  private readonly events: ModelEvent[] = [];
  /** Ids of active alerts with the absolute number of their trigger, in trigger order. */
  private readonly activeTriggers: { id: string; n: number }[] = [];

  /** `start` = the absolute number of the first event this model sees (the log's next_cursor at the start). */
  constructor(private readonly start: number) {}

  private get total(): number {
    return this.start + this.events.length;
  }

  raise(id: string): void {
    if (this.activeTriggers.some((a) => a.id === id)) return;
    this.activeTriggers.push({ id, n: this.total });
    this.events.push({ n: this.total, id, active: true });
  }

  clear(id: string): void {
    const index = this.activeTriggers.findIndex((a) => a.id === id);
    if (index < 0) return;
    this.activeTriggers.splice(index, 1);
    this.events.push({ n: this.total, id, active: false });
  }

  answer(cursor: number | undefined): ModelAnswer {
    const nextCursor = this.total % MOD;
    const log = this.events.slice(-LOG_SIZE);
    let shown: ModelEvent[];
    const position = cursor === undefined ? undefined : this.total - ((nextCursor - cursor + MOD) % MOD);
    if (position === undefined || position < this.total - log.length) {
      shown = log;
    } else {
      shown = log.filter((e) => e.n >= position);
    }
    return {
      active: this.activeTriggers.map((a) => ({ cursor: a.n % MOD, id: a.id })),
      log: shown.map((e) => ({ cursor: e.n % MOD, id: e.id, active: e.active })),
      next_cursor: nextCursor,
    };
  }
}
