/**
 * The `Date` header of the unit's answers, written from the UTC getters instead of by Node.
 *
 * Why: Node writes it with `Date.prototype.toUTCString`, and V8 (Node 20) looks up the local time zone
 * for that although the text is in GMT; the first lookup loads ICU's time-zone data and tables, 0.85 MB
 * of memory for the rest of the unit's run, which nothing else the unit does needs (its own ISO times
 * come from model/util/utc-time.ts). Same text as Node's (RFC 9110's IMF-fixdate, `Thu, 26 Nov 2026
 * 10:26:01 GMT`), and like Node's made once per second. Answers written around Fastify (a hijacked reply)
 * keep Node's own.
 */
import type { FastifyInstance } from 'fastify';

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const two = (value: number) => (value < 10 ? `0${value}` : String(value));

let cachedSecond = Number.NaN;
let cachedText = '';

/** The IMF-fixdate of `ms` (default: now), as `toUTCString` writes it for years 1000-9999. */
export function httpDate(ms = Date.now()): string {
  const second = Math.floor(ms / 1000);
  if (second === cachedSecond) return cachedText;
  const d = new Date(second * 1000);
  cachedText =
    `${DAYS[d.getUTCDay()]}, ${two(d.getUTCDate())} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()} ` +
    `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} GMT`;
  cachedSecond = second;
  return cachedText;
}

/** Every answer Fastify sends carries our Date header instead of Node's. */
export function installDateHeader(app: FastifyInstance): void {
  // Callback style: it runs for every answer (an async hook costs a promise each time).
  app.addHook('onSend', (_request, reply, payload, done) => {
    // Node writes no Date header of its own when the answer has one (and so never formats one).
    reply.header('date', httpDate());
    done(null, payload);
  });
}
