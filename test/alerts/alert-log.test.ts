/** The alert log's own contract: catalogue, store adapters, flags, robustness. */
import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AlertLog } from '../../src/alerts/alert-log.js';
import { MemoryAlertLogStore, type AlertLogStore } from '../../src/alerts/alert-log-store.js';
import { SqliteAlertLogStore } from '../../src/alerts/alert-store-sqlite.js';
import { alertFlags } from '../../src/model/alert-flags.js';
import { ALERT_CATALOGUE, alertDefinition, renderVerbose } from '../../src/model/alert-catalogue.js';
import { openDatabase } from '../../src/store/database.js';
import { systemRealtimeNs } from '../../src/hal/realtime-clock.js';
import { removeDir } from '../helpers/test-sensor.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach(removeDir));

function database() {
  const dir = mkdtempSync(join(tmpdir(), 'alert-log-'));
  dirs.push(dir);
  return openDatabase(dir);
}

describe('catalogue', () => {
  it('holds every id of docs/http-api.md (Alerts) with its category and level, plus OVERTEMP warning and error', () => {
    const expected: [string, string, string][] = [
      ['0x01000011', 'ETHERNET_LINK_BAD', 'WARNING'],
      ['0x01000015', 'UDP_TRANSMISSION', 'WARNING'],
      ['0x01000016', 'UDP_TRANSMISSION', 'WARNING'],
      ['0x01000017', 'UDP_TRANSMISSION', 'WARNING'],
      ['0x01000018', 'UDP_TRANSMISSION', 'WARNING'],
      ['0x01000019', 'UDP_TRANSMISSION', 'WARNING'],
      ['0x0100001A', 'UDP_TRANSMISSION', 'WARNING'],
      ['0x0100002E', 'INPUT_VOLTAGE', 'WARNING'],
      ['0x0100002F', 'INPUT_VOLTAGE', 'ERROR'],
      ['0x01000030', 'INPUT_VOLTAGE', 'WARNING'],
      ['0x01000031', 'INPUT_VOLTAGE', 'ERROR'],
      ['0x01000032', 'UDP_CONNECT', 'WARNING'],
      ['0x01000033', 'UDP_CONNECT', 'WARNING'],
      ['0x01000035', 'UDP_CONNECT', 'WARNING'],
      ['0x01000037', 'UDP_CONNECT', 'WARNING'],
      ['0x01000039', 'UDP_CONNECT', 'WARNING'],
      ['0x0100004E', 'WARMUP_ISSUE', 'WARNING'],
      ['0x01000050', 'MOTOR_CONTROL', 'WARNING'],
      ['0x01000051', 'MOTOR_CONTROL', 'ERROR'],
      ['0x01000052', 'CONFIG_INVALID', 'ERROR'],
      ['0x01000053', 'WARMUP_ISSUE', 'ERROR'],
      ['0x01000054', 'INTERNAL_FAULT', 'NOTICE'],
    ];
    for (const [id, category, level] of expected) expect(alertDefinition(id)).toMatchObject({ id, category, level });
    const overtemp = ALERT_CATALOGUE.filter((d) => d.category === 'OVERTEMP')
      .map((d) => d.level)
      .sort();
    expect(overtemp).toEqual(['ERROR', 'WARNING']);
    const ids = ALERT_CATALOGUE.map((d) => d.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const d of ALERT_CATALOGUE) {
      expect(d.id).toMatch(/^0x0100[0-9A-F]{4}$/);
      expect(d.msg.length).toBeGreaterThan(10);
    }
  });

  it('fills verbose templates and leaves missing variables visible', () => {
    expect(renderVerbose('to {host}:{port} ({error})', { host: 'h', port: 7502 })).toBe('to h:7502 ({error})');
  });

  it('refuses ids that are not in the catalogue', () => {
    expect(() => new AlertLog().raise('0x0100FFFF')).toThrow(/not in the alert catalogue/);
  });
});

describe('systemRealtimeNs', () => {
  it('never goes backwards and stays inside the OS clock millisecond', () => {
    let previous = 0n;
    for (let i = 0; i < 20_000; i++) {
      const before = BigInt(Date.now()) * 1_000_000n;
      const reading = systemRealtimeNs();
      const after = BigInt(Date.now() + 1) * 1_000_000n;
      expect(reading >= previous).toBe(true);
      expect(reading >= before && reading < after).toBe(true);
      previous = reading;
    }
  });
});

describe('alert_flags', () => {
  it('bit 7 = any active, bit 6 = overflowed, bits 0-5 = next_cursor & 63', () => {
    expect(alertFlags({ activeCount: 0, overflowed: false, nextCursor: 0 })).toBe(0);
    expect(alertFlags({ activeCount: 2, overflowed: false, nextCursor: 12 })).toBe(0x8c);
    expect(alertFlags({ activeCount: 1, overflowed: false, nextCursor: 16 })).toBe(0x90);
    expect(alertFlags({ activeCount: 1, overflowed: true, nextCursor: 4294967295 })).toBe(0xff);
    expect(alertFlags({ activeCount: 0, overflowed: true, nextCursor: 64 })).toBe(0x40);
  });
});

describe('AlertLog', () => {
  it('keeps realtime strictly increasing even when the clock stands still or steps back', () => {
    const times = [5_000n, 5_000n, 4_000n, 6_000n];
    const log = new AlertLog({ realtimeNs: () => times.shift() ?? 0n });
    log.raise('0x01000015');
    log.clear('0x01000015');
    log.raise('0x01000015');
    log.clear('0x01000015');
    expect(log.snapshot().log.map((e) => e.realtime)).toEqual(['5000', '5001', '5002', '6000']);
  });

  it('keeps logging when the store fails, and reports the failure', () => {
    const failures: unknown[] = [];
    const failing: AlertLogStore = {
      load: () => undefined,
      record: () => {
        throw new Error('disk full');
      },
    };
    const log = new AlertLog({ store: failing, onError: (e) => failures.push(e) });
    log.raise('0x01000015');
    expect(log.snapshot().nextCursor).toBe(1);
    expect(log.isActive('0x01000015')).toBe(true);
    expect(String(failures[0])).toMatch(/disk full/);
  });

  it('a failing listener does not stop the others', () => {
    const seen: number[] = [];
    const log = new AlertLog({ onError: () => {} });
    log.subscribe(() => {
      throw new Error('bug');
    });
    log.subscribe(() => seen.push(log.snapshot().nextCursor));
    log.raise('0x01000011');
    expect(seen).toEqual([1]);
  });

  it('clearForReinit clears run-scoped alerts only', () => {
    const log = new AlertLog();
    log.raise('0x01000015');
    log.raise('0x0100002E');
    log.raise('0x01000052');
    log.clearForReinit();
    expect(log.snapshot().active.map((e) => e.id)).toEqual(['0x0100002E']);
    expect(
      log
        .snapshot()
        .log.filter((e) => !e.active)
        .map((e) => e.id),
    ).toEqual(['0x01000015', '0x01000052']);
  });

  it('the SQLite store restores exactly what the in-memory store holds, for random histories', () => {
    const ids = ['0x01000015', '0x01000018', '0x0100002E', '0x01000060'];
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 32 - 1 }),
        fc.array(fc.record({ raise: fc.boolean(), id: fc.constantFrom(...ids) }), { maxLength: 80 }),
        (start, events) => {
          const db = database();
          db.prepare('INSERT INTO alert_state (id, next_cursor, overflowed) VALUES (1, ?, 0)').run(start);
          const memory = new MemoryAlertLogStore({ nextCursor: start, overflowed: false, log: [], active: [] });
          let clock = 1_000n;
          const logs = [
            new AlertLog({ store: new SqliteAlertLogStore(db), realtimeNs: () => clock }),
            new AlertLog({ store: memory, realtimeNs: () => clock }),
          ];
          for (const event of events) {
            clock += 10n;
            for (const log of logs) {
              if (event.raise) log.raise(event.id, { host: 'h', port: 1 });
              else log.clear(event.id, 'done');
            }
          }
          const restored = new AlertLog({ store: new SqliteAlertLogStore(db) }).snapshot();
          expect(restored).toEqual(new AlertLog({ store: memory }).snapshot());
          expect(restored).toEqual(logs[0].snapshot());
          db.close();
        },
      ),
      { numRuns: 40 },
    );
  });
});
