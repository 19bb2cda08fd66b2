/** The spec's literal alert rules and examples, through GET /api/v1/sensor/alerts. */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestSensor, removeDir, type TestSensor } from '../helpers/test-sensor.js';
import type { AlertEntry } from '../../src/alerts/alert-entry.js';

const LIDAR_UNREACHABLE = '0x01000015';
const IMU_UNREACHABLE = '0x01000018';
const LINK_BAD = '0x01000011';
const UDP_VARS = { host: '192.0.2.7', port: 7502 };

/** An entry as GET /api/v1/sensor/alerts sends it (the wire form is the log's own entry). */
type Entry = AlertEntry;
interface Answer {
  active: Entry[];
  log: Entry[];
  next_cursor: number;
}

const units: TestSensor[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(units.splice(0).map((u) => u.close()));
  dirs.splice(0).forEach(removeDir);
});

/** A new unit whose alert log starts at `firstCursor` (--alert-cursor-start), as after a long life of alerts. */
async function unitAt(firstCursor?: number, options: Parameters<typeof createTestSensor>[0] = {}): Promise<TestSensor> {
  const dataDir = mkdtempSync(join(tmpdir(), 'alerts-spec-'));
  dirs.push(dataDir);
  const unit = await createTestSensor({
    ...options,
    dataDir,
    unit: { ...options.unit, alertCursorStart: firstCursor },
  });
  units.push(unit);
  return unit;
}

async function get(unit: TestSensor, query = ''): Promise<Answer> {
  const response = await unit.app.inject(`/api/v1/sensor/alerts${query}`);
  expect(response.statusCode).toBe(200);
  expect(response.headers['content-type']).toBe('application/json');
  return response.json() as Answer;
}

/** `count` logged events: alternately raising and clearing one alert. */
function logEvents(unit: TestSensor, count: number, id = LIDAR_UNREACHABLE): void {
  for (let i = 0; i < count; i++) {
    if (unit.sensor.alerts.isActive(id)) unit.sensor.alerts.clear(id, 'test');
    else unit.sensor.alerts.raise(id, UDP_VARS);
  }
}

/** The cursors of the log entries `query` answers. */
async function cursorsFor(unit: TestSensor, query: string): Promise<number[]> {
  return (await get(unit, query)).log.map((e) => e.cursor);
}

/** `count` consecutive cursors from `first`, round the 2^32 wrap. */
const cursorRun = (first: number, count: number) => Array.from({ length: count }, (_, i) => (first + i) % 2 ** 32);

describe('rule 4: the cursor wraps at 2^32', () => {
  it('right after a wrap, cursor 0 returns nothing and cursor 4294967264 returns all 32 entries', async () => {
    const unit = await unitAt(4294967264);
    logEvents(unit, 32);
    const all = await get(unit);
    expect(all.next_cursor).toBe(0);
    expect(all.log.map((e) => e.cursor)).toEqual(cursorRun(4294967264, 32));

    expect((await get(unit, '?cursor=0')).log).toEqual([]);
    expect((await get(unit, '?cursor=4294967264')).log).toEqual(all.log);
    // Ahead of next_cursor: all 32.
    expect((await get(unit, '?cursor=1')).log).toEqual(all.log);
    // One before next_cursor, round the wrap: the last entry only.
    expect(await cursorsFor(unit, '?cursor=4294967295')).toEqual([4294967295]);
  });

  it('a client that passes back next_cursor gets exactly the new entries, across the wrap', async () => {
    const unit = await unitAt(4294967290);
    logEvents(unit, 3);
    const first = await get(unit);
    expect(first.next_cursor).toBe(4294967293);
    logEvents(unit, 5);
    const next = await get(unit, `?cursor=${first.next_cursor}`);
    expect(next.next_cursor).toBe(2);
    expect(next.log.map((e) => e.cursor)).toEqual([4294967293, 4294967294, 4294967295, 0, 1]);
    logEvents(unit, 2);
    expect(await cursorsFor(unit, `?cursor=${next.next_cursor}`)).toEqual([2, 3]);
  });

  it('every query of the rules, with ten real entries on both sides of 2^32 (the log not yet full)', async () => {
    const unit = await unitAt(4294967290);
    logEvents(unit, 10);
    const all = await get(unit);
    expect(all.next_cursor).toBe(4);
    expect(all.log.map((e) => e.cursor)).toEqual(cursorRun(4294967290, 10));
    const table: [query: string, cursors: number[]][] = [
      ['', cursorRun(4294967290, 10)],
      // Inside the log: from the cursor on, never an entry before it.
      ['?cursor=4294967290', cursorRun(4294967290, 10)],
      ['?cursor=4294967294', cursorRun(4294967294, 6)],
      ['?cursor=4294967295', cursorRun(4294967295, 5)],
      ['?cursor=0', [0, 1, 2, 3]],
      ['?cursor=3', [3]],
      // At next_cursor: nothing new.
      ['?cursor=4', []],
      // Ahead of next_cursor: the whole log.
      ['?cursor=5', cursorRun(4294967290, 10)],
      ['?cursor=2147483648', cursorRun(4294967290, 10)],
      // In the gap (within 32 of next_cursor, before the oldest entry) and older: the whole log.
      ['?cursor=4294967289', cursorRun(4294967290, 10)],
      ['?cursor=4294967268', cursorRun(4294967290, 10)],
      ['?cursor=4294967000', cursorRun(4294967290, 10)],
    ];
    for (const [query, cursors] of table) {
      expect({ query, cursors: await cursorsFor(unit, query) }).toEqual({ query, cursors });
      const summary = await get(unit, `${query ? `${query}&` : '?'}mode=summary`);
      expect({ query, summary: summary.log.map((e) => e.cursor) }).toEqual({ query, summary: cursors });
    }
  });

  it('an overflowed log across the wrap: a cursor lost to the FIFO gets the whole log, one inside it the rest', async () => {
    const unit = await unitAt(4294967280);
    logEvents(unit, 40);
    const all = await get(unit);
    expect(all.next_cursor).toBe(24);
    expect(all.log.map((e) => e.cursor)).toEqual(cursorRun(4294967288, 32));
    expect(await cursorsFor(unit, '?cursor=4294967284')).toEqual(cursorRun(4294967288, 32));
    expect(await cursorsFor(unit, '?cursor=4294967287')).toEqual(cursorRun(4294967288, 32));
    expect(await cursorsFor(unit, '?cursor=4294967288')).toEqual(cursorRun(4294967288, 32));
    expect(await cursorsFor(unit, '?cursor=4294967293')).toEqual(cursorRun(4294967293, 27));
    expect(await cursorsFor(unit, '?cursor=20')).toEqual([20, 21, 22, 23]);
    expect(await cursorsFor(unit, '?cursor=24')).toEqual([]);
    expect(await cursorsFor(unit, '?cursor=25')).toEqual(cursorRun(4294967288, 32));
  });

  it('a log started near the top (--alert-cursor-start) survives a power cycle where it was, and the option no longer moves it', async () => {
    const unit = await unitAt(4294967290);
    logEvents(unit, 8);
    const again = await unit.reopen();
    units.push(again);
    expect((await get(again)).next_cursor).toBe(2);
    expect(await cursorsFor(again, '?cursor=4294967295')).toEqual([4294967295, 0, 1]);
  });

  it('without a wrap: cursor = next_cursor → nothing; a lower one → the entries from it; below next_cursor − 32 → the whole log', async () => {
    const unit = await unitAt(1000);
    logEvents(unit, 40);
    const all = await get(unit);
    expect(all.next_cursor).toBe(1040);
    expect(all.log).toHaveLength(32);
    expect(all.log[0].cursor).toBe(1008);
    expect((await get(unit, '?cursor=1040')).log).toEqual([]);
    expect((await get(unit, '?cursor=1035')).log.map((e) => e.cursor)).toEqual([1035, 1036, 1037, 1038, 1039]);
    expect((await get(unit, '?cursor=5')).log).toEqual(all.log);
    expect((await get(unit, '?cursor=1041')).log).toEqual(all.log);
  });
});

describe('rules 1-3: active, the 32-entry FIFO, cursors', () => {
  it('starts empty with next_cursor 0 on a new unit', async () => {
    const unit = await unitAt();
    expect(await get(unit)).toEqual({ active: [], log: [], next_cursor: 0 });
  });

  it('keeps the last 32 entries; active is unlimited and independent of the log', async () => {
    const unit = await unitAt();
    unit.sensor.alerts.raise(LINK_BAD, { speed: 100, duplex: 'full' });
    logEvents(unit, 40);
    const answer = await get(unit);
    expect(answer.next_cursor).toBe(41);
    expect(answer.log).toHaveLength(32);
    expect(answer.log.map((e) => e.cursor)).toEqual(Array.from({ length: 32 }, (_, i) => 9 + i));
    // The trigger of LINK_BAD left the log long ago; it is still active, with its own cursor.
    expect(answer.active.map((e) => [e.id, e.cursor, e.active])).toEqual([[LINK_BAD, 0, true]]);
  });

  it('a poller sees every event at once, in both forms, though the answer is rendered once per change', async () => {
    const unit = await unitAt();
    for (const query of ['', '?mode=summary']) expect((await get(unit, query)).next_cursor).toBe(0);
    for (let events = 1; events <= 3; events++) {
      logEvents(unit, 1);
      for (const query of ['', '?mode=summary']) {
        const first = await get(unit, query);
        expect(first.next_cursor).toBe(events);
        expect(first.log).toHaveLength(events);
        expect(first.active).toHaveLength(events % 2);
        expect(await get(unit, query)).toEqual(first);
      }
    }
    expect((await get(unit, '?mode=summary')).log[0]).not.toHaveProperty('msg');
    expect((await get(unit)).log[0]).toHaveProperty('msg');
  });

  it('raising an active alert logs nothing; clearing an inactive one logs nothing', async () => {
    const unit = await unitAt();
    unit.sensor.alerts.raise(LIDAR_UNREACHABLE, UDP_VARS);
    unit.sensor.alerts.raise(LIDAR_UNREACHABLE, { host: 'other', port: 1 });
    unit.sensor.alerts.clear(IMU_UNREACHABLE);
    const answer = await get(unit);
    expect(answer.next_cursor).toBe(1);
    expect(answer.log).toHaveLength(1);
    expect(answer.active).toEqual(answer.log);
  });

  it('a clear entry repeats its trigger with a later realtime and cursor and active false', async () => {
    const unit = await unitAt();
    unit.sensor.alerts.raise(LIDAR_UNREACHABLE, UDP_VARS);
    unit.sensor.alerts.clear(LIDAR_UNREACHABLE, 'the client is listening again.');
    const [trigger, clear] = (await get(unit)).log;
    expect(trigger).toMatchObject({
      id: LIDAR_UNREACHABLE,
      category: 'UDP_TRANSMISSION',
      level: 'WARNING',
      active: true,
      cursor: 0,
    });
    expect(trigger.msg).toContain('udp_dest');
    expect(trigger.msg).toContain('udp_port_lidar');
    expect(trigger.msg_verbose).toContain('192.0.2.7:7502');
    expect(clear).toEqual({
      ...trigger,
      active: false,
      cursor: 1,
      realtime: clear.realtime,
      msg_verbose: clear.msg_verbose,
    });
    expect(BigInt(clear.realtime)).toBeGreaterThan(BigInt(trigger.realtime));
    expect(clear.msg_verbose).toBe(`${trigger.msg_verbose} Cleared: the client is listening again.`);
  });

  it('realtime is the system realtime clock in nanoseconds (spec rule 6)', async () => {
    const unit = await unitAt();
    const before = BigInt(Date.now()) * 1_000_000n;
    unit.sensor.alerts.raise(LIDAR_UNREACHABLE, UDP_VARS);
    const after = BigInt(Date.now() + 1) * 1_000_000n;
    const [entry] = (await get(unit)).log;
    expect(entry.realtime).toMatch(/^[0-9]+$/);
    expect(BigInt(entry.realtime)).toBeGreaterThanOrEqual(before);
    expect(BigInt(entry.realtime)).toBeLessThan(after);
  });

  it('realtime is on the clock GET /api/v1/time/system reports', async () => {
    const unit = await unitAt();
    const first = (await unit.app.inject('/api/v1/time/system')).json() as { realtime: number };
    unit.sensor.alerts.raise(LIDAR_UNREACHABLE, UDP_VARS);
    const second = (await unit.app.inject('/api/v1/time/system')).json() as { realtime: number };
    const seconds = Number(BigInt((await get(unit)).log[0].realtime)) / 1e9;
    // Both are float seconds of one clock: the alert falls between the two readings (float rounding aside).
    expect(seconds).toBeGreaterThanOrEqual(first.realtime - 1e-6);
    expect(seconds).toBeLessThanOrEqual(second.realtime + 1e-6);
  });
});

describe('rule 5 and the query', () => {
  it('cursor=2&mode=summary: reduced entries, and an empty log when nothing is newer', async () => {
    const unit = await unitAt();
    unit.sensor.alerts.raise(LIDAR_UNREACHABLE, UDP_VARS);
    unit.sensor.alerts.raise(IMU_UNREACHABLE, { ...UDP_VARS, port: 7503 });
    const full = await get(unit);
    const summary = await get(unit, '?cursor=2&mode=summary');
    expect(summary).toEqual({
      active: full.active.map((e) => ({ cursor: e.cursor, id: e.id, realtime: e.realtime })),
      log: [],
      next_cursor: 2,
    });
    const summaryLog = await get(unit, '?mode=summary&cursor=1');
    expect(summaryLog.log).toEqual([{ active: true, cursor: 1, id: IMU_UNREACHABLE, realtime: full.log[1].realtime }]);
  });

  it('argument order is irrelevant; mode=default is the full form', async () => {
    const unit = await unitAt();
    logEvents(unit, 5);
    expect(await get(unit, '?cursor=3&mode=summary')).toEqual(await get(unit, '?mode=summary&cursor=3'));
    expect(await get(unit, '?mode=default&cursor=3')).toEqual(await get(unit, '?cursor=3'));
    expect(Object.keys((await get(unit, '?mode=default')).log[0])).toEqual([
      'category',
      'level',
      'realtime',
      'active',
      'msg',
      'cursor',
      'id',
      'msg_verbose',
    ]);
  });

  it.each([
    ['?cursor=-1', '/query/cursor'],
    ['?cursor=abc', '/query/cursor'],
    ['?cursor=', '/query/cursor'],
    ['?cursor=1.5', '/query/cursor'],
    ['?cursor=0x10', '/query/cursor'],
    ['?cursor=4294967296', '/query/cursor'],
    ['?cursor=99999999999', '/query/cursor'],
    ['?cursor=1&cursor=2', '/query/cursor'],
    ['?mode=SUMMARY', '/query/mode'],
    ['?mode=full', '/query/mode'],
    ['?mode=', '/query/mode'],
    ['?cursor=1&mode=brief', '/query/mode'],
    ['?curser=1', '/query/curser'],
  ])('%s is a 400 naming %s, and changes nothing', async (query, pointer) => {
    const unit = await unitAt();
    logEvents(unit, 3);
    const before = await get(unit);
    const response = await unit.app.inject(`/api/v1/sensor/alerts${query}`);
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toBe('application/json');
    const problem = response.json() as { status: number; detail: string; errors: { pointer: string }[] };
    expect(problem.status).toBe(400);
    expect(problem.errors.map((e) => e.pointer)).toContain(pointer);
    expect(await get(unit)).toEqual(before);
  });

  it('reports both a bad cursor and a bad mode at once', async () => {
    const unit = await unitAt();
    const response = await unit.app.inject('/api/v1/sensor/alerts?mode=x&cursor=y');
    expect(response.statusCode).toBe(400);
    expect((response.json() as { errors: { pointer: string }[] }).errors.map((e) => e.pointer).sort()).toEqual([
      '/query/cursor',
      '/query/mode',
    ]);
  });
});

describe('persistence and the device core', () => {
  it('next_cursor, the log and the active set survive a power cycle; cursors continue', async () => {
    const unit = await unitAt(4294967290);
    logEvents(unit, 10);
    unit.sensor.alerts.raise(LINK_BAD, { speed: 100, duplex: 'half' });
    const before = await get(unit);
    expect(before.next_cursor).toBe(5);
    const again = await unit.reopen();
    units.push(again);
    expect(await get(again)).toEqual(before);
    again.sensor.alerts.raise(IMU_UNREACHABLE, UDP_VARS);
    const after = await get(again);
    expect(after.next_cursor).toBe(6);
    expect(after.log.at(-1)).toMatchObject({ id: IMU_UNREACHABLE, cursor: 5 });
    expect(BigInt(after.log.at(-1)!.realtime)).toBeGreaterThan(BigInt(before.log.at(-1)!.realtime));
  });

  it('a restart clears the alerts of the run that ended, logging the clear after the restored entries', async () => {
    const unit = await unitAt();
    unit.sensor.alerts.raise(LIDAR_UNREACHABLE, UDP_VARS);
    const again = await unit.reopen();
    units.push(again);
    const answer = await get(again);
    expect(answer.active).toEqual([]);
    expect(answer.log.map((e) => [e.id, e.cursor, e.active])).toEqual([
      [LIDAR_UNREACHABLE, 0, true],
      [LIDAR_UNREACHABLE, 1, false],
    ]);
  });

  it('a reinit clears the alerts of the previous run, saying so, and keeps measured conditions', async () => {
    const unit = await unitAt();
    unit.sensor.alerts.raise(LIDAR_UNREACHABLE, UDP_VARS);
    unit.sensor.alerts.raise(LINK_BAD, { speed: 100, duplex: 'full' });
    const response = await unit.app.inject({
      method: 'POST',
      url: '/api/v1/sensor/config',
      payload: { lidar_mode: '512x10' },
    });
    expect(response.statusCode).toBe(204);
    const answer = await get(unit);
    expect(answer.active.map((e) => e.id)).toEqual([LINK_BAD]);
    const clear = answer.log.at(-1)!;
    expect(clear).toMatchObject({ id: LIDAR_UNREACHABLE, active: false, cursor: 2 });
    expect(clear.msg_verbose).toMatch(/reinitialized/);
  });

  it('pushes the alert_flags byte to the data plane on every change', async () => {
    const flags: number[] = [];
    const unit = await unitAt(60, {
      hal: (defaults) => {
        const original = defaults.streams.setAlertFlags.bind(defaults.streams);
        defaults.streams.setAlertFlags = (value: number) => {
          flags.push(value);
          original(value);
        };
        return defaults;
      },
    });
    expect(flags.at(-1)).toBe(60);
    unit.sensor.alerts.raise(LIDAR_UNREACHABLE, UDP_VARS);
    expect(flags.at(-1)).toBe(0x80 | 61);
    unit.sensor.alerts.clear(LIDAR_UNREACHABLE);
    expect(flags.at(-1)).toBe(62);
    logEvents(unit, 32, IMU_UNREACHABLE);
    // 94 & 0x3f = 30, the log overflowed, nothing active after an even number of toggles.
    expect(flags.at(-1)).toBe(0x40 | 30);
    expect(unit.sensor.alerts.flags()).toBe(0x40 | 30);
  });
});
