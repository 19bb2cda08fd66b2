/**
 * Group commit: a write resolves only after a WAL flush that began after its commit; writes that
 * commit while a flush is in flight share the next one. The disk flush is replaced by one the test
 * completes by hand, so the order of commit, flush and acknowledgement is observed exactly.
 */
import { mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GroupCommit } from '../../src/store/group-commit.js';
import { openDatabase, type SqliteDatabase } from '../../src/store/database.js';
import { KvStore } from '../../src/store/kv-store.js';

describe('group commit', () => {
  let dir: string;
  let db: SqliteDatabase;
  let flushes: { path: string; done: () => void; fail: (e: Error) => void }[];
  let group: GroupCommit;
  let kv: KvStore;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'group-commit-'));
    db = openDatabase(dir);
    kv = new KvStore(db);
    flushes = [];
    group = new GroupCommit(
      db,
      (path) => new Promise((done, fail) => flushes.push({ path, done: () => done(), fail })),
    );
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const settledFlag = (promise: Promise<unknown>) => {
    const state = { settled: false };
    promise.then(
      () => (state.settled = true),
      () => (state.settled = true),
    );
    return state;
  };
  const tick = () => new Promise((r) => setImmediate(r));

  it('acknowledges a write only after the WAL flush that follows its commit', async () => {
    const a = settledFlag(group.commit(() => kv.set('a', 1)));
    expect(kv.get('a')).toBe(1); // committed at once
    expect(flushes).toHaveLength(1);
    expect(flushes[0].path).toBe(join(dir, 'sensor.db-wal'));
    await tick();
    expect(a.settled).toBe(false);
    flushes[0].done();
    await tick();
    expect(a.settled).toBe(true);
    expect(group.pending()).toBeUndefined();
  });

  it('batches writes arriving during a flush into the next one, and answers them after it', async () => {
    const a = settledFlag(group.commit(() => kv.set('a', 1)));
    const b = settledFlag(group.commit(() => kv.set('b', 2)));
    const c = settledFlag(group.commit(() => kv.set('c', 3)));
    const reader = settledFlag(group.pending() as Promise<void>);
    expect(flushes).toHaveLength(1); // b and c wait: the flush in flight may have begun before they committed
    flushes[0].done();
    await tick();
    expect([a.settled, b.settled, c.settled, reader.settled]).toEqual([true, false, false, false]);
    expect(flushes).toHaveLength(2); // one flush for both
    flushes[1].done();
    await tick();
    expect([b.settled, c.settled, reader.settled]).toEqual([true, true, true]);
    expect(flushes).toHaveLength(2);
  });

  it('a failed flush fails its writes instead of acknowledging them', async () => {
    const write = group.commit(() => kv.set('a', 1));
    flushes[0].fail(new Error('EIO'));
    await expect(write).rejects.toThrow('EIO');
  });

  it('flushes the real WAL file by default and restores synchronous=FULL for every other write', async () => {
    const real = new GroupCommit(db);
    await real.commit(() => kv.set('a', 'durable'));
    expect(db.pragma('synchronous', { simple: true })).toBe(2); // FULL
    expect(kv.get('a')).toBe('durable');
    await real.close();
  });

  it('flushes through one WAL handle held until close', async () => {
    const walHandles = () =>
      readdirSync('/proc/self/fd').filter((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`) === join(dir, 'sensor.db-wal');
        } catch {
          return false; // closed while listing
        }
      }).length;
    const real = new GroupCommit(db);
    const sqliteOwn = walHandles();
    await Promise.all(Array.from({ length: 20 }, (_, i) => real.commit(() => kv.set(`k${i}`, i))));
    for (let i = 0; i < 5; i++) await real.commit(() => kv.set('again', i));
    expect(walHandles()).toBe(sqliteOwn + 1);
    await real.close();
    expect(walHandles()).toBe(sqliteOwn);
    expect(kv.get('again')).toBe(4);
  });
});
