/**
 * A moment as UTC text, in the two forms the unit writes: ISO 8601, exactly as
 * `Date.prototype.toISOString` writes it (`2024-05-01T12:00:00.000Z`), and HTTP's IMF-fixdate, exactly
 * as `Date.prototype.toUTCString` writes it (`Thu, 26 Nov 2026 10:26:01 GMT`, the Date header).
 *
 * Why not those methods themselves: V8 (Node 20) looks up the local time zone on every call of either,
 * although the text is UTC, and the first lookup loads ICU's time-zone data and tables, kept in
 * memory for the rest of the run (docs/benchmarks.md, figures behind design choices). Nothing the unit does needs the local time zone; the UTC
 * getters do not look it up.
 */
const pad = (value: number, width: number) => String(value).padStart(width, '0');

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

export function utcIsoString(ms: number): string {
  const date = new Date(ms);
  const year = date.getUTCFullYear();
  // Invalid dates (which throw) and years outside 0-9999 (written with a sign and six digits): Date's own.
  if (!(year >= 0 && year <= 9999)) return date.toISOString();
  return (
    `${pad(year, 4)}-${pad(date.getUTCMonth() + 1, 2)}-${pad(date.getUTCDate(), 2)}` +
    `T${pad(date.getUTCHours(), 2)}:${pad(date.getUTCMinutes(), 2)}:${pad(date.getUTCSeconds(), 2)}` +
    `.${pad(date.getUTCMilliseconds(), 3)}Z`
  );
}

let cachedSecond = Number.NaN;
let cachedHttpDate = '';

/** The IMF-fixdate of `ms` (default: now) for years 1000-9999; made once per second, as Node does. */
export function httpDate(ms = Date.now()): string {
  const second = Math.floor(ms / 1000);
  if (second === cachedSecond) return cachedHttpDate;
  const d = new Date(second * 1000);
  cachedHttpDate =
    `${DAYS[d.getUTCDay()]}, ${pad(d.getUTCDate(), 2)} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()} ` +
    `${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)} GMT`;
  cachedSecond = second;
  return cachedHttpDate;
}
