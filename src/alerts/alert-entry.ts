import type { AlertLevel } from '../model/index.js';

/** Cursors are unsigned 32-bit integers: they wrap to 0 after 4294967295 (spec: "The cursor wraps at 2^32"). */
export const CURSOR_MODULUS = 2 ** 32;
/** Spec Limits: the alert log is a FIFO of at most 32 entries. */
export const ALERT_LOG_CAPACITY = 32;

/** One alert event in its full form; key order as the spec's alert object table lists them. */
export interface AlertEntry {
  category: string;
  level: AlertLevel;
  /** Nanoseconds since the Unix epoch of the system realtime clock, as a decimal string. */
  realtime: string;
  active: boolean;
  msg: string;
  cursor: number;
  id: string;
  msg_verbose: string;
}

/** The state of the alert log at one moment. */
export interface AlertLogSnapshot {
  /** Currently active alerts (their trigger entries), oldest trigger first. */
  active: readonly AlertEntry[];
  /** The last (at most 32) trigger and clear entries, oldest first. */
  log: readonly AlertEntry[];
  /** The cursor the next logged entry will get. */
  nextCursor: number;
  /** True once an entry has been pushed out of the full log. */
  overflowed: boolean;
}
