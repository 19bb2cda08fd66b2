import type { AlertEntry } from './alert-entry.js';

/** What survives a restart: next_cursor never goes backwards, and the log and active set come back. */
export interface PersistedAlertState {
  nextCursor: number;
  overflowed: boolean;
  /** Oldest first. */
  log: AlertEntry[];
  /** Oldest trigger first. */
  active: AlertEntry[];
}

/** One logged event, written by the store as one small transaction. */
export interface AlertLogChange {
  entry: AlertEntry;
  /** The log entry pushed out of the full FIFO by `entry`, if any. */
  droppedCursor?: number;
  nextCursor: number;
  overflowed: boolean;
}

/**
 * Persistence of the alert log. The log calls `record` once per logged event (the active set is
 * derived: a trigger entry adds its id, a clear entry removes it); `load` runs once at start.
 */
export interface AlertLogStore {
  load(): PersistedAlertState | undefined;
  record(change: AlertLogChange): void;
}

/** Keeps the state in memory only; for tests and for a sensor started without a data directory. */
export class MemoryAlertLogStore implements AlertLogStore {
  private state: PersistedAlertState | undefined;

  constructor(initial?: PersistedAlertState) {
    this.state = initial && structuredClone(initial);
  }

  load(): PersistedAlertState | undefined {
    return this.state && structuredClone(this.state);
  }

  record(change: AlertLogChange): void {
    const state = this.state ?? { nextCursor: 0, overflowed: false, log: [], active: [] };
    state.log = state.log.filter((e) => e.cursor !== change.droppedCursor);
    state.log.push({ ...change.entry });
    state.active = change.entry.active
      ? [...state.active, { ...change.entry }]
      : state.active.filter((e) => e.id !== change.entry.id);
    state.nextCursor = change.nextCursor;
    state.overflowed = change.overflowed;
    this.state = state;
  }
}
