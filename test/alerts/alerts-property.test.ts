/**
 * Property: for random trigger/clear sequences, starting anywhere in the u32 cursor range (often just
 * below the 2^32 wrap), every answer of GET /api/v1/sensor/alerts equals what the reference model of
 * the spec's rules (reference-model.ts) says, for random cursors, both modes and both argument orders.
 */
import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ALERT_CATALOGUE } from '../../src/model/alert-catalogue.js';
import { createTestSensor, removeDir } from '../helpers/test-sensor.js';
import { AlertModel } from './reference-model.js';
import type { AlertEntry } from '../../src/alerts/alert-entry.js';

const MOD = 2 ** 32;
const IDS = ['0x01000015', '0x01000018', '0x0100002E', '0x01000060', '0x01000011'];
const VARS = {
  host: '192.0.2.7',
  port: 7502,
  error: 'ECONNREFUSED',
  voltage_mv: 20500,
  threshold_mv: 21000,
  temperature_c: 86,
  threshold_c: 85,
  speed: 100,
  duplex: 'full',
};
const FULL_KEYS = ['category', 'level', 'realtime', 'active', 'msg', 'cursor', 'id', 'msg_verbose'];
const byId = new Map(ALERT_CATALOGUE.map((d) => [d.id, d]));

type CursorSpec = { kind: 'none' } | { kind: 'absolute'; value: number } | { kind: 'relative'; delta: number };
interface Step {
  change: { kind: 'raise' | 'clear'; id: string } | { kind: 'burst'; count: number } | { kind: 'none' };
  cursor: CursorSpec;
  mode: 'default' | 'summary' | undefined;
  modeFirst: boolean;
}

const cursorSpec: fc.Arbitrary<CursorSpec> = fc.oneof(
  fc.constant<CursorSpec>({ kind: 'none' }),
  fc.integer({ min: 0, max: MOD - 1 }).map((value): CursorSpec => ({ kind: 'absolute', value })),
  fc
    .constantFrom(0, 1, 31, 32, 33, MOD - 33, MOD - 32, MOD - 31, MOD - 1)
    .map((value): CursorSpec => ({ kind: 'absolute', value })),
  fc.integer({ min: -40, max: 40 }).map((delta): CursorSpec => ({ kind: 'relative', delta })),
);

const step: fc.Arbitrary<Step> = fc.record({
  change: fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record({ kind: fc.constantFrom('raise' as const, 'clear' as const), id: fc.constantFrom(...IDS) }),
    },
    {
      weight: 1,
      arbitrary: fc.record({ kind: fc.constant('burst' as const), count: fc.integer({ min: 1, max: 40 }) }),
    },
    { weight: 1, arbitrary: fc.constant({ kind: 'none' as const }) },
  ),
  cursor: cursorSpec,
  mode: fc.constantFrom(undefined, 'default' as const, 'summary' as const),
  modeFirst: fc.boolean(),
});

const startCursor = fc.oneof(
  fc.constant(0),
  fc.integer({ min: MOD - 80, max: MOD - 1 }),
  fc.integer({ min: 0, max: MOD - 1 }),
);

function url(cursor: number | undefined, mode: string | undefined, modeFirst: boolean): string {
  const parts = [
    cursor === undefined ? undefined : `cursor=${cursor}`,
    mode === undefined ? undefined : `mode=${mode}`,
  ].filter((p) => p !== undefined);
  if (modeFirst) parts.reverse();
  return `/api/v1/sensor/alerts${parts.length ? `?${parts.join('&')}` : ''}`;
}

/** An entry as GET /api/v1/sensor/alerts sends it (the wire form is the log's own entry). */
type FullEntry = AlertEntry;

const dirs: string[] = [];
afterAll(() => dirs.forEach(removeDir));

describe('GET /api/v1/sensor/alerts against the reference model', () => {
  it('answers every query as the spec rules say, across the 2^32 wrap', async () => {
    let answers = 0;
    let wrapsCrossed = 0;
    await fc.assert(
      fc.asyncProperty(startCursor, fc.array(step, { minLength: 1, maxLength: 60 }), async (start, steps) => {
        const dir = mkdtempSync(join(tmpdir(), 'alerts-prop-'));
        dirs.push(dir);
        // The log starts where the run starts, as --alert-cursor-start makes a unit's log start.
        const unit = await createTestSensor({ dataDir: dir, unit: { alertCursorStart: start } });
        try {
          const model = new AlertModel(start);
          /** Trigger entries seen so far, by cursor, to check clear entries against. */
          const triggers = new Map<number, FullEntry>();
          let toggle = 0;
          const apply = (kind: 'raise' | 'clear', id: string) => {
            if (kind === 'raise') {
              unit.sensor.alerts.raise(id, VARS);
              model.raise(id);
            } else {
              unit.sensor.alerts.clear(id, 'the test ended the condition');
              model.clear(id);
            }
          };
          for (const s of steps) {
            if (s.change.kind === 'raise' || s.change.kind === 'clear') apply(s.change.kind, s.change.id);
            if (s.change.kind === 'burst') {
              for (let i = 0; i < s.change.count; i++) {
                const id = IDS[toggle++ % IDS.length];
                apply(unit.sensor.alerts.isActive(id) ? 'clear' : 'raise', id);
              }
            }
            const expectedAll = model.answer(undefined);
            const cursor =
              s.cursor.kind === 'none'
                ? undefined
                : s.cursor.kind === 'absolute'
                  ? s.cursor.value
                  : (((expectedAll.next_cursor + s.cursor.delta) % MOD) + MOD) % MOD;
            const response = await unit.app.inject(url(cursor, s.mode, s.modeFirst));
            expect(response.statusCode).toBe(200);
            const body = response.json() as {
              active: Record<string, unknown>[];
              log: Record<string, unknown>[];
              next_cursor: number;
            };
            const expected = model.answer(cursor);
            answers++;

            expect(body.next_cursor).toBe(expected.next_cursor);
            expect(body.active.map((e) => ({ cursor: e.cursor, id: e.id }))).toEqual(expected.active);
            expect(body.log.map((e) => ({ cursor: e.cursor, id: e.id, active: e.active }))).toEqual(expected.log);

            if (s.mode === 'summary') {
              for (const e of body.active) expect(Object.keys(e)).toEqual(['cursor', 'id', 'realtime']);
              for (const e of body.log) expect(Object.keys(e)).toEqual(['active', 'cursor', 'id', 'realtime']);
              continue;
            }
            for (const e of [...body.active, ...body.log] as unknown as FullEntry[]) {
              expect(Object.keys(e)).toEqual(FULL_KEYS);
              const definition = byId.get(e.id)!;
              expect([e.category, e.level, e.msg]).toEqual([definition.category, definition.level, definition.msg]);
              expect(e.realtime).toMatch(/^[1-9][0-9]*$/);
              if (e.active) triggers.set(e.cursor, e);
            }
            for (const e of body.active as unknown as FullEntry[]) expect(e.active).toBe(true);
            const log = body.log as unknown as FullEntry[];
            for (let i = 1; i < log.length; i++)
              expect(BigInt(log[i].realtime)).toBeGreaterThan(BigInt(log[i - 1].realtime));
            // A clear entry repeats its trigger: the trigger is the latest earlier trigger of the same id.
            for (const clearEntry of log.filter((e) => !e.active)) {
              const trigger = [...triggers.values()]
                .filter((t) => t.id === clearEntry.id && BigInt(t.realtime) < BigInt(clearEntry.realtime))
                .at(-1);
              if (!trigger) continue;
              expect({ ...clearEntry, realtime: '', cursor: 0, active: true, msg_verbose: '' }).toEqual({
                ...trigger,
                realtime: '',
                cursor: 0,
                active: true,
                msg_verbose: '',
              });
              expect(clearEntry.msg_verbose.startsWith(trigger.msg_verbose)).toBe(true);
            }
          }
          // next_cursor only grows, so ending below the start means the run crossed 2^32.
          if (model.answer(undefined).next_cursor < start) wrapsCrossed++;
        } finally {
          await unit.close();
        }
      }),
      {
        numRuns: 40,
        // Random runs cross the wrap only sometimes; this one always does (50 events from 2^32 - 10),
        // with queries on both sides of it, so every run of the suite covers the wrap.
        examples: [
          [
            MOD - 10,
            Array.from(
              { length: 50 },
              (_, i): Step => ({
                change: { kind: i % 2 === 0 ? 'raise' : 'clear', id: IDS[(i >> 1) % IDS.length] },
                cursor:
                  i % 5 === 0
                    ? { kind: 'absolute', value: [0, MOD - 32, MOD - 1, 4294967264, 3][i % 5 === 0 ? (i / 5) % 5 : 0] }
                    : { kind: 'relative', delta: -(i % 40) },
                mode: i % 3 === 0 ? 'summary' : undefined,
                modeFirst: i % 2 === 0,
              }),
            ),
          ],
        ],
      },
    );
    expect(answers).toBeGreaterThan(40);
    // The generator starts many runs just below 2^32 so that some of them cross the wrap.
    expect(wrapsCrossed).toBeGreaterThan(0);
  }, 180_000);
});
