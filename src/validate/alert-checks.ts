/**
 * The alert document as read: next_cursor and the log's cursors (rule 3: an off by one there makes every polling
 * client lose or repeat alerts), entry shapes in both modes, the cursor query (rules 3 and 4), query argument
 * order, a bad cursor refused, and alert times against the unit's clock (rule 6).
 */
import { type CheckRun, expectThat, show, SkipCheck } from './check-run.js';
import { DOCUMENT_KEYS, keyMismatch } from './spec-rules.js';
import type { Json, UnitClient } from './unit-client.js';

/** Cursors wrap at 2^32 (rule 4): "before" and "ahead" are counted round it. */
const CURSORS = 2 ** 32;

/** GET /api/v1/sensor/alerts as the checks read it once. */
interface Alerts {
  active: Json[];
  log: Json[];
  next_cursor: number;
}

export async function alertChecks(run: CheckRun, client: UnitClient): Promise<void> {
  const alerts = await run.readOrSkip('alerts', 'alert checks', () => client.readJson<Alerts>('/api/v1/sensor/alerts'));
  if (alerts === undefined) return;
  await logChecks(run, alerts);
  await cursorChecks(run, client, alerts);
  await queryChecks(run, client, alerts);
}

/**
 * What contradicts rule 3 across answers to the alert log read together: an answer whose log is not empty must
 * have next_cursor one past its last entry (mod 2^32), and every answer the same next_cursor as the first.
 */
export function nextCursorProblems(answers: { query: string; log: Json[]; next_cursor: number }[]): string[] {
  const problems: string[] = [];
  const first = answers[0]?.next_cursor;
  for (const { query, log, next_cursor } of answers) {
    const where = `GET /api/v1/sensor/alerts${query}`;
    const last = log.at(-1)?.cursor;
    if (typeof last === 'number' && next_cursor !== (last + 1) % CURSORS)
      problems.push(`${where}: next_cursor ${next_cursor} after a last entry with cursor ${last}`);
    if (next_cursor !== first) problems.push(`${where}: next_cursor ${next_cursor}, ${first} without a query`);
  }
  return problems;
}

/** The log and its entries as read: cursor range and sequence, length, entry form. */
async function logChecks(run: CheckRun, alerts: Alerts): Promise<void> {
  const next = alerts.next_cursor;
  await run.check('alerts.next-cursor', 'alerts next_cursor is an integer 0..2^32-1', () =>
    expectThat(Number.isInteger(next) && next >= 0 && next < CURSORS, show(next)),
  );
  await run.check('alerts.log-length', 'the alert log holds at most 32 entries (FIFO)', () =>
    expectThat(alerts.log.length <= 32, `${alerts.log.length} entries`),
  );
  await run.check('alerts.log-cursors', 'log cursors count up by one and end just below next_cursor', () => {
    alerts.log.forEach((entry, i) => {
      if (i > 0)
        expectThat(
          entry.cursor === ((alerts.log[i - 1].cursor as number) + 1) % CURSORS,
          `cursor ${entry.cursor} after ${alerts.log[i - 1].cursor}`,
        );
    });
    const last = alerts.log.at(-1);
    if (last)
      expectThat(
        (last.cursor as number) === (next + CURSORS - 1) % CURSORS,
        `last cursor ${last.cursor}, next_cursor ${next}`,
      );
    return `${alerts.log.length} entries, next_cursor ${next}`;
  });
  await run.check(
    'alerts.entry-shape',
    'every alert entry has the full form: category, level, realtime (ns string), active, msg, cursor, id (hex), msg_verbose',
    () => {
      for (const entry of [...alerts.active, ...alerts.log]) {
        const problem = keyMismatch(entry, DOCUMENT_KEYS.alert_full);
        expectThat(problem === '', `${show(entry.id)}: ${problem}`);
        expectThat(/^0x[0-9A-Fa-f]{8}$/.test(String(entry.id)), `id ${show(entry.id)} is not 0x + 8 hex digits`);
        expectThat(/^\d+$/.test(String(entry.realtime)), `realtime ${show(entry.realtime)} is not a nanosecond string`);
        expectThat(['NOTICE', 'WARNING', 'ERROR'].includes(String(entry.level)), `level ${show(entry.level)}`);
      }
      return `${alerts.active.length} active, ${alerts.log.length} logged`;
    },
  );
  await run.check('alerts.active-flag', 'entries in active are active: true', () =>
    expectThat(
      alerts.active.every((e) => e.active === true),
      'an inactive entry in active',
    ),
  );
}

/** Reads with a cursor query against the log read first. */
async function cursorChecks(run: CheckRun, client: UnitClient, alerts: Alerts): Promise<void> {
  const next = alerts.next_cursor;
  await run.check('alerts.cursor-next', 'cursor=next_cursor returns no log entries (rule 3)', async () => {
    const answer = await client.fresh<{ log: Json[]; next_cursor: number }>(`/api/v1/sensor/alerts?cursor=${next}`);
    const newer = answer.log.filter((e) => (e.cursor as number) < next || answer.next_cursor !== next);
    expectThat(answer.next_cursor !== next || answer.log.length === 0, `${answer.log.length} entries returned`);
    return newer.length ? 'new alerts arrived meanwhile' : undefined;
  });
  await run.check('alerts.cursor-ahead', 'a cursor ahead of next_cursor returns the whole log (rule 4)', async () => {
    const ahead = (next + 1) % CURSORS;
    const answer = await client.fresh<{ log: Json[]; next_cursor: number }>(`/api/v1/sensor/alerts?cursor=${ahead}`);
    const whole = await client.fresh<{ log: Json[] }>('/api/v1/sensor/alerts');
    expectThat(answer.log.length === whole.log.length, `${answer.log.length} of ${whole.log.length} entries`);
  });
  await run.check(
    'alerts.cursor-behind',
    'a cursor k before next_cursor, counted round the 2^32 wrap, returns exactly the last k log entries (rules 3, 4)',
    async () => {
      if (alerts.log.length === 0) throw new SkipCheck('the log is empty');
      const logged = alerts.log.map((e) => e.cursor as number);
      // Every depth the log holds: where the log straddles 2^32, some of them lie on the other side of it.
      const depths = logged.map((_, i) => i + 1);
      const problems: string[] = [];
      for (const k of depths) {
        const cursor = (next - k + CURSORS) % CURSORS;
        const answer = await client.fresh<{ log: Json[]; next_cursor: number }>(
          `/api/v1/sensor/alerts?cursor=${cursor}`,
        );
        if (answer.next_cursor !== next) return 'new alerts arrived meanwhile';
        const got = answer.log.map((e) => e.cursor as number);
        const want = logged.slice(logged.length - k);
        if (got.join() !== want.join())
          problems.push(`cursor=${cursor} (${k} before ${next}): ${show(got)}, want ${show(want)}`);
      }
      expectThat(problems.length === 0, problems.join('; '));
      return `cursors ${(next - 1 + CURSORS) % CURSORS} back to ${logged[0]} with next_cursor ${next}`;
    },
  );
  await run.check(
    'alerts.cursor-gap',
    'a cursor older than the log (in its gap, or lost to the FIFO) returns the whole log (rule 4)',
    async () => {
      if (alerts.log.length === 0) throw new SkipCheck('the log is empty');
      const cursor = (next - alerts.log.length - 1 + CURSORS) % CURSORS;
      const answer = await client.fresh<{ log: Json[]; next_cursor: number }>(`/api/v1/sensor/alerts?cursor=${cursor}`);
      if (answer.next_cursor !== next) return 'new alerts arrived meanwhile';
      expectThat(
        answer.log.length === alerts.log.length,
        `cursor=${cursor}: ${answer.log.length} of ${alerts.log.length} entries`,
      );
    },
  );
  await run.check(
    'alerts.next-cursor-log',
    'next_cursor is one past the last log entry returned, with and without a cursor query (rule 3)',
    async () => {
      const cursors = [alerts.log[0]?.cursor, alerts.log.at(-1)?.cursor, next].filter((c) => typeof c === 'number');
      const queries = [
        '',
        '?mode=summary',
        ...[...new Set(cursors)].flatMap((c) => [`?cursor=${c}`, `?cursor=${c}&mode=summary`]),
      ];
      // Alerts may arrive between two reads: the whole round is read again once before it is judged.
      let problems: string[] = [];
      for (let round = 0; round < 2; round++) {
        const answers = [];
        for (const query of queries)
          answers.push({
            query,
            ...(await client.fresh<{ log: Json[]; next_cursor: number }>(`/api/v1/sensor/alerts${query}`)),
          });
        problems = nextCursorProblems(answers);
        if (problems.length === 0) return `${answers.length} queries, next_cursor ${answers[0].next_cursor}`;
      }
      expectThat(false, problems.join('; '));
    },
  );
}

/** Summary mode, argument order, a bad cursor, and the alerts' time against the unit's clock. */
async function queryChecks(run: CheckRun, client: UnitClient, alerts: Alerts): Promise<void> {
  await run.check(
    'alerts.summary-shape',
    'mode=summary: active entries hold cursor, id, realtime; log entries also active',
    async () => {
      const summary = await client.readJson<{ active: Json[]; log: Json[] }>('/api/v1/sensor/alerts?mode=summary');
      for (const entry of summary.log)
        expectThat(
          keyMismatch(entry, DOCUMENT_KEYS.alert_summary_log) === '',
          keyMismatch(entry, DOCUMENT_KEYS.alert_summary_log),
        );
      for (const entry of summary.active) {
        // The reference response shows full entries in active; both forms are accepted there.
        const asSummary = keyMismatch(entry, DOCUMENT_KEYS.alert_summary_active);
        expectThat(asSummary === '' || keyMismatch(entry, DOCUMENT_KEYS.alert_full) === '', asSummary);
      }
    },
  );
  await run.check(
    'alerts.argument-order',
    'query argument order is irrelevant (cursor&mode = mode&cursor)',
    async () => {
      const a = await client.fresh('/api/v1/sensor/alerts?cursor=0&mode=summary');
      const b = await client.fresh('/api/v1/sensor/alerts?mode=summary&cursor=0');
      expectThat(JSON.stringify(a) === JSON.stringify(b), 'answers differ');
    },
  );
  await run.check('alerts.bad-cursor', 'a cursor that is not an integer is refused with 400', async () => {
    const answer = await client.request('GET', '/api/v1/sensor/alerts?cursor=banana');
    expectThat(answer.status === 400, `answered ${answer.status}`);
  });
  await run.check(
    'alerts.realtime-clock',
    'alert realtime (ns) is not later than GET /api/v1/time/system realtime (rule 6)',
    async () => {
      const system = await client.fresh('/api/v1/time/system');
      const latest = [...alerts.active, ...alerts.log].reduce((max, e) => Math.max(max, Number(e.realtime) / 1e9), 0);
      if (latest === 0) throw new SkipCheck('no alert entries to compare');
      expectThat(
        latest <= (system.realtime as number) + 1,
        `alert at ${latest} s after the unit's realtime ${system.realtime} s`,
      );
    },
  );
}
