/** The kv settings store: cached reads that are never stale, rollbacks included. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { openDatabase, type SqliteDatabase } from '../../src/store/database.js';
import { KvStore } from '../../src/store/kv-store.js';

let db: SqliteDatabase;
afterEach(() => db?.close());
const open = () => (db = openDatabase(mkdtempSync(join(tmpdir(), 'sensor-kv-'))));

it('a write through one store is seen by another on the same database', () => {
  open();
  const a = new KvStore(db);
  const b = new KvStore(db);
  expect(b.get('k')).toBeUndefined();
  a.set('k', { n: 1 });
  expect(b.get('k')).toEqual({ n: 1 });
  a.delete('k');
  expect(b.get('k')).toBeUndefined();
});

it('a rolled-back transaction leaves neither its value nor a stale one in the cache', () => {
  open();
  const kv = new KvStore(db);
  kv.set('k', 'committed');
  expect(kv.get('k')).toBe('committed');
  expect(() =>
    db.transaction(() => {
      kv.set('k', 'rolled back');
      expect(kv.get('k')).toBe('rolled back');
      throw new Error('power dip');
    })(),
  ).toThrow('power dip');
  expect(kv.get('k')).toBe('committed');
  expect(db.prepare('SELECT value FROM kv WHERE key = ?').get('k')).toEqual({ value: '"committed"' });
});

it('returns a fresh object each read, so a caller cannot change the cached value', () => {
  open();
  const kv = new KvStore(db);
  kv.set('k', { list: [1] });
  kv.get<{ list: number[] }>('k')!.list.push(2);
  expect(kv.get('k')).toEqual({ list: [1] });
});
