/**
 * GET /api/v1/sensor/alerts: query parsing, the cursor filter and the summary form.
 *
 * Cursor filter (spec alert rule 4), in unsigned 32-bit integers compared as plain numbers:
 *
 *   no cursor given           → every log entry
 *   cursor >  next_cursor     → every log entry (the spec: "all 32 log entries are reported")
 *   cursor <= next_cursor     → the entries with  cursor <= entry.cursor < next_cursor
 *
 * Why this holds the spec's examples literally: the log always holds the entries just before
 * next_cursor, i.e. cursors (next_cursor - 32 .. next_cursor - 1) mod 2^32. Without a wrap inside
 * the log every entry is < next_cursor, so the rule is the familiar "entries at or after my saved
 * cursor"; a client that saved next_cursor gets exactly the new entries, and one whose cursor is
 * below (next_cursor - 32) mod 2^32 gets the whole log (the entries in between are lost to the FIFO).
 * Right after a wrap (next_cursor < 32) the entries logged before the wrap have cursors near 2^32,
 * above next_cursor, so a cursor <= next_cursor filters them out: cursor 0 with next_cursor 0
 * returns nothing although the log holds 32 entries, while cursor 4294967264 is above next_cursor
 * 0 and returns all 32 — the two cases of rule 4's example.
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

/** The log entries a client holding `cursor` is given (see the module comment). */
export function selectLogEntries(
  log: readonly AlertEntry[],
  nextCursor: number,
  cursor: number | undefined,
): AlertEntry[] {
  if (cursor === undefined || cursor > nextCursor) return [...log];
  return log.filter((entry) => cursor <= entry.cursor && entry.cursor < nextCursor);
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
