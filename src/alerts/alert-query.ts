/**
 * GET /api/v1/sensor/alerts: query parsing, the cursor filter and the summary form.
 *
 * Cursor filter (spec alert rule 4). Cursors are u32 and wrap at 2^32, so "before" and "after" are read round
 * the wrap: a cursor is `behind` entries before next_cursor, behind = (next_cursor - cursor) mod 2^32.
 *
 *   no cursor given                    → every log entry
 *   behind = 0 (cursor = next_cursor)  → nothing: the client has seen everything
 *   1 <= behind <= log length          → the entries from the cursor on (the last `behind` entries)
 *   behind > log length                → every log entry: the cursor is older than the log (in the gap of a log
 *                                        not yet full, or lost to the FIFO) or ahead of next_cursor
 *
 * A client that saves next_cursor and passes it back gets exactly the new entries, also when the log holds
 * entries on both sides of the wrap (4294967294 with next_cursor 4 → 4294967294, 4294967295, 0 .. 3), and never
 * an entry before its cursor again. The spec's examples hold: right after a wrap, cursor 0 with next_cursor 0
 * returns nothing, cursor 4294967264 (32 behind) the 32 entries of the log, and a cursor ahead of next_cursor
 * (behind > 32) the whole log. Read as plain numbers instead, "cursor > next_cursor → the whole log" would hand a
 * client whose cursor lies just before the wrap entries it had already counted.
 *
 * Summary form (spec rule 5): the spec defines it as `active` entries holding cursor, id, realtime
 * and `log` entries holding active, cursor, id, realtime. Its reference response to
 * `cursor=2&mode=summary` shows full entries in `active`; we follow the normative definition and
 * reduce both lists, so a summary client never has to handle two shapes. `mode=default` (or no
 * mode) gives full entries.
 */
import { badRequest, type FieldError } from '../model/index.js';
import { CURSOR_MODULUS, type AlertEntry, type AlertLogSnapshot } from './alert-entry.js';

export const ALERT_MODES = ['default', 'summary'] as const;
export type AlertMode = (typeof ALERT_MODES)[number];

export interface AlertQuery {
  /** A u32; absent means "the whole log". */
  cursor?: number;
  mode: AlertMode;
}

export interface ActiveSummary {
  cursor: number;
  id: string;
  realtime: string;
}
export interface LogSummary {
  active: boolean;
  cursor: number;
  id: string;
  realtime: string;
}

export type AlertsResponse =
  | { active: readonly AlertEntry[]; log: readonly AlertEntry[]; next_cursor: number }
  | { active: ActiveSummary[]; log: LogSummary[]; next_cursor: number };

const U32_TEXT = /^[0-9]{1,10}$/;

/**
 * Validates the query of GET /api/v1/sensor/alerts. Every problem is reported at once as a 400;
 * parameters other than cursor and mode are ignored (clients add cache busters).
 */
export function parseAlertQuery(query: Readonly<Record<string, unknown>>): AlertQuery {
  const errors: FieldError[] = [];
  let cursor: number | undefined;
  let mode: AlertMode = 'default';

  const rawCursor = query.cursor;
  if (rawCursor !== undefined) {
    if (typeof rawCursor !== 'string') {
      errors.push({ pointer: '/query/cursor', detail: 'must be given once' });
    } else if (!U32_TEXT.test(rawCursor) || Number(rawCursor) >= CURSOR_MODULUS) {
      errors.push({
        pointer: '/query/cursor',
        detail: `must be an integer from 0 to ${CURSOR_MODULUS - 1}, got ${JSON.stringify(rawCursor)}`,
      });
    } else {
      cursor = Number(rawCursor);
    }
  }

  const rawMode = query.mode;
  if (rawMode !== undefined) {
    if (typeof rawMode !== 'string') {
      errors.push({ pointer: '/query/mode', detail: 'must be given once' });
    } else if (!(ALERT_MODES as readonly string[]).includes(rawMode)) {
      errors.push({
        pointer: '/query/mode',
        detail: `must be "summary" or "default" (case sensitive), got ${JSON.stringify(rawMode)}`,
      });
    } else {
      mode = rawMode as AlertMode;
    }
  }

  if (errors.length > 0) {
    throw badRequest(
      errors.length === 1
        ? `${errors[0].pointer.slice('/query/'.length)} ${errors[0].detail}`
        : errors.map((e) => `${e.pointer.slice('/query/'.length)} ${e.detail}`).join('; '),
      errors,
    );
  }
  return cursor === undefined ? { mode } : { cursor, mode };
}

/** How many cursors `cursor` lies before `nextCursor`, round the 2^32 wrap (0: it is next_cursor). */
export function cursorsBehind(cursor: number, nextCursor: number): number {
  return (nextCursor - cursor + CURSOR_MODULUS) % CURSOR_MODULUS;
}

/** The log entries a client holding `cursor` is given (see the module comment). */
export function selectLogEntries(
  log: readonly AlertEntry[],
  nextCursor: number,
  cursor: number | undefined,
): AlertEntry[] {
  if (cursor === undefined) return [...log];
  const behind = cursorsBehind(cursor, nextCursor);
  if (behind > log.length) return [...log];
  return log.filter((entry) => cursorsBehind(entry.cursor, nextCursor) <= behind);
}

/** The whole log in each form, per snapshot: a snapshot never changes, so neither does its answer. */
const wholeLog: Record<AlertMode, WeakMap<AlertLogSnapshot, AlertsResponse>> = {
  default: new WeakMap(),
  summary: new WeakMap(),
};

/**
 * The answer to `query`. Without a cursor (what pollers ask) it is the same object for as long as
 * the snapshot is current, so its JSON is made once per change of the log (sendCachedJson).
 */
export function renderAlerts(snapshot: AlertLogSnapshot, query: AlertQuery): AlertsResponse {
  if (query.cursor !== undefined) return render(snapshot, query);
  const rendered = wholeLog[query.mode];
  let answer = rendered.get(snapshot);
  if (!answer) rendered.set(snapshot, (answer = render(snapshot, query)));
  return answer;
}

function render(snapshot: AlertLogSnapshot, query: AlertQuery): AlertsResponse {
  const log = selectLogEntries(snapshot.log, snapshot.nextCursor, query.cursor);
  if (query.mode === 'summary') {
    return {
      active: snapshot.active.map(({ cursor, id, realtime }) => ({ cursor, id, realtime })),
      log: log.map(({ active, cursor, id, realtime }) => ({ active, cursor, id, realtime })),
      next_cursor: snapshot.nextCursor,
    };
  }
  return { active: snapshot.active, log, next_cursor: snapshot.nextCursor };
}
