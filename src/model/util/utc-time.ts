/**
 * A moment as ISO 8601 UTC text, exactly as `Date.prototype.toISOString` writes it
 * (`2024-05-01T12:00:00.000Z`).
 *
 * Why not toISOString itself: V8 (Node 20) looks up the local time zone on every call of it although
 * the text is UTC, and the first lookup loads ICU's time-zone data and tables: about 0.6-0.9 MB of memory
 * and 1 ms, at every start (the identity's calibration time, the firmware image's build time). Nothing
 * else the unit does needs the local time zone (its HTTP Date header: src/routes/http/date-header.ts).
 * The UTC getters do not look it up.
 */
const pad = (value: number, width: number) => String(value).padStart(width, '0');

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
