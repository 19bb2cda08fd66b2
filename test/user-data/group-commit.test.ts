/**
 * Group commit: a write resolves only after a WAL flush that began after its commit; writes that
 * commit while a flush is in flight share the next one. The disk flush is replaced by one the test
 * completes by hand, so the order of commit, flush and acknowledgement is observed exactly.
 */
import { copyFileSync, mkdtempSync, readdirSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FIRST_PROBE_MS, FLUSH_WINDOW, FlushPolicy } from '../../src/store/flush-policy.js';
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

  it('commits the writes that arrive in one turn during a flush as one transaction, in arrival order, while it runs', async () => {
    const first = group.commit(() => kv.set('order', 'first'));
    const changes = () => (db.prepare('SELECT total_changes() AS n').get() as { n: number }).n;
    const results = [1, 2, 3].map((i) =>
      group.commit(() => {
        kv.set('order', `w${i}`);
        return i;
      }),
    );
    // Queued for the end of this turn: not yet in the database.
    expect(kv.get('order')).toBe('first');
    await tick();
    expect(kv.get('order')).toBe('w3'); // committed while the first flush still runs, the last one last
    const later = group.commit(() => kv.set('later', changes()));
    await tick();
    expect(kv.get('later')).toBeDefined(); // a later turn: its own transaction, still during the same flush
    expect(flushes).toHaveLength(1); // no second flush before the first ends
    flushes[0].done();
    await expect(first).resolves.toBeUndefined();
    await tick();
    expect(flushes).toHaveLength(2); // one flush for all four
    const acked = settledFlag(Promise.all(results));
    await tick();
    expect(acked.settled).toBe(false); // committed during flush 1, which may have begun before: they wait for flush 2
    flushes[1].done();
    expect(await Promise.all(results)).toEqual([1, 2, 3]); // each write's own result
    await later;
    expect(group.pending()).toBeUndefined();
  });

  it('writes queued when a flush ends are committed then and share the flush with those committed before', async () => {
    group.commit(() => kv.set('a', 1));
    const b = settledFlag(group.commit(() => kv.set('b', 2)));
    await tick(); // b committed during flush 1
    const c = group.commit(() => kv.set('c', 3)); // queued; flush 1 ends before its turn ends
    flushes[0].done();
    await Promise.resolve();
    await tick();
    expect(kv.get('c')).toBe(3);
    expect(flushes).toHaveLength(2);
    flushes[1].done();
    await c;
    expect(b.settled).toBe(true);
    expect(flushes).toHaveLength(2);
  });

  it('one failing write in a batch is undone alone; the others are committed and acknowledged', async () => {
    group.commit(() => kv.set('x', 0));
    const before = group.commit(() => kv.set('a', 'kept'));
    const failing = group.commit(() => {
      kv.set('b', 'half-written');
      throw new Error('refused inside the transaction');
    });
    const after = group.commit(() => kv.set('c', 'kept too'));
    const failed = settledFlag(failing);
    flushes[0].done();
    await tick();
    await expect(failing).rejects.toThrow('refused inside the transaction');
    expect(failed.settled).toBe(true); // refused at once: it has nothing to wait for
    expect([kv.get('a'), kv.get('b'), kv.get('c')]).toEqual(['kept', undefined, 'kept too']);
    const acked = [settledFlag(before), settledFlag(after)];
    await tick();
    expect(acked.map((a) => a.settled)).toEqual([false, false]); // still waiting for their flush
    flushes[1].done();
    await expect(Promise.all([before, after])).resolves.toEqual([undefined, undefined]);
  });

  it('of several writes of one key in a batch only the last runs; all are answered after the flush', async () => {
    group.commit(() => kv.set('x', 0)); // flush 1 in flight: what follows is one batch
    const ran: string[] = [];
    const keyed = [1, 2, 3].map((i) =>
      group.replace('k', () => {
        ran.push(`k${i}`);
        kv.set('k', i);
      }),
    );
    const other = group.commit(() => ran.push('other'));
    const acked = settledFlag(Promise.all(keyed));
    await tick();
    expect(ran).toEqual(['k3', 'other']);
    expect(kv.get('k')).toBe(3);
    flushes[0].done();
    await tick();
    expect(acked.settled).toBe(false); // the batch waits for its own flush, overwritten writes too
    flushes[1].done();
    await expect(Promise.all(keyed)).resolves.toEqual([undefined, undefined, undefined]);
    await expect(other).resolves.toBe(2);
  });

  it('when the last write of a key throws, it is undone alone and the one before runs in its place', async () => {
    group.commit(() => kv.set('x', 0));
    const ran: number[] = [];
    const write = (i: number, fails = false) =>
      group.replace('k', () => {
        ran.push(i);
        kv.set('k', i);
        if (fails) throw new Error(`refused ${i}`);
      });
    const [a, b, c, d] = [write(1), write(2), write(3, true), write(4, true)];
    const refused = Promise.all([expect(c).rejects.toThrow('refused 3'), expect(d).rejects.toThrow('refused 4')]);
    await tick();
    expect(ran).toEqual([4, 3, 2]);
    expect(kv.get('k')).toBe(2);
    await refused;
    flushes[0].done();
    await tick();
    flushes[1].done();
    await expect(Promise.all([a, b])).resolves.toEqual([undefined, undefined]);
  });

  it('a batch whose writes all fail starts no flush, and a reader waiting on it is answered', async () => {
    const a = group.commit(() => kv.set('a', 1));
    const failing = group.commit(() => {
      throw new Error('no');
    });
    const reader = settledFlag(group.pending() as Promise<void>);
    flushes[0].done();
    await expect(failing).rejects.toThrow('no');
    await a;
    await tick();
    expect(flushes).toHaveLength(1);
    expect(reader.settled).toBe(true);
    expect(group.pending()).toBeUndefined();
  });

  it('a failed flush fails the writes it carried; writes queued behind it are committed and flushed anew', async () => {
    const a = group.commit(() => kv.set('a', 1));
    const b = group.commit(() => kv.set('b', 2));
    flushes[0].fail(new Error('EIO'));
    await expect(a).rejects.toThrow('EIO');
    expect(flushes).toHaveLength(2); // b's own flush
    flushes[1].done();
    await expect(b).resolves.toBeUndefined();
  });

  it('reads after a write is acknowledged see it, on the same and on a fresh connection', async () => {
    const real = new GroupCommit(db);
    await Promise.all(Array.from({ length: 10 }, (_, i) => real.commit(() => kv.set('ryw', i))));
    expect(kv.get('ryw')).toBe(9);
    const other = new Database(join(dir, 'sensor.db'), { readonly: true });
    try {
      expect(other.prepare("SELECT value FROM kv WHERE key = 'ryw'").get()).toEqual({ value: '9' });
    } finally {
      other.close();
    }
    await real.close();
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

  it('grows the WAL once to its size between checkpoints, with zeros that recovery after a crash ignores', async () => {
    const real = new GroupCommit(db);
    await real.commit(() => kv.set('a', 'durable'));
    const wal = join(dir, 'sensor.db-wal');
    const pragma = (name: string) => db.pragma(name, { simple: true }) as number;
    expect(statSync(wal).size).toBe(32 + pragma('wal_autocheckpoint') * (pragma('page_size') + 24));
    await real.commit(() => kv.set('b', 'durable too'));
    // The files as a power cut would leave them (no shared-memory index): recovery reads the WAL's
    // frames and stops at the zeros.
    const crashed = mkdtempSync(join(tmpdir(), 'group-commit-crash-'));
    try {
      copyFileSync(join(dir, 'sensor.db'), join(crashed, 'sensor.db'));
      copyFileSync(wal, join(crashed, 'sensor.db-wal'));
      const recovered = new Database(join(crashed, 'sensor.db'));
      try {
        expect(recovered.pragma('integrity_check', { simple: true })).toBe('ok');
        expect(recovered.prepare("SELECT key, value FROM kv WHERE key IN ('a', 'b') ORDER BY key").all()).toEqual([
          { key: 'a', value: '"durable"' },
          { key: 'b', value: '"durable too"' },
        ]);
      } finally {
        recovered.close();
      }
    } finally {
      rmSync(crashed, { recursive: true, force: true });
    }
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

  describe('inline flush (on the event loop, while flushes are fast)', () => {
    /** A clock the inline flush advances by `flushMs`: how long the "disk" takes, without real waiting. */
    let clock: number;
    let flushMs: number;
    let inlineFlushes: { path: string; sawCommitted: unknown }[];
    let inline: GroupCommit;
    let failNext: Error | undefined;
    beforeEach(() => {
      clock = 0;
      flushMs = 0.2;
      inlineFlushes = [];
      failNext = undefined;
      inline = new GroupCommit(
        db,
        (path) => new Promise((done, fail) => flushes.push({ path, done: () => done(), fail })),
        {
          policy: new FlushPolicy(() => clock),
          sync: (path) => {
            // What a second connection sees at the moment of the flush: the batch, committed before it.
            const other = new Database(join(dir, 'sensor.db'), { readonly: true });
            const row = other.prepare("SELECT value FROM kv WHERE key = 'k'").get() as { value: string } | undefined;
            other.close();
            inlineFlushes.push({ path, sawCommitted: row?.value });
            clock += flushMs;
            if (failNext) throw failNext;
          },
        },
      );
    });
    const write = (value: number) => inline.commit(() => kv.set('k', value));

    it('commits the writes of one turn as one transaction, flushes once, and answers only after the flush', async () => {
      const writes = [write(1), write(2), write(3)];
      const reader = settledFlag(inline.pending() as Promise<void>);
      expect(kv.get('k')).toBeUndefined(); // committed at the end of the turn, not at once
      await Promise.all(writes);
      expect(inlineFlushes).toEqual([{ path: join(dir, 'sensor.db-wal'), sawCommitted: '3' }]);
      expect(flushes).toHaveLength(0); // never the thread pool
      expect(reader.settled).toBe(true);
      expect(inline.pending()).toBeUndefined();
      expect(db.pragma('synchronous', { simple: true })).toBe(2); // FULL again for every other write
    });

    // The sync is synchronous: an answer before it cannot be told from one after it, except by a failed sync.
    it('a failed inline flush fails the writes it carried; a later write is flushed anew', async () => {
      failNext = new Error('EIO');
      const a = write(1);
      await expect(a).rejects.toThrow('EIO');
      failNext = undefined;
      await expect(write(2)).resolves.toBeUndefined();
      expect(inlineFlushes).toHaveLength(2);
    });

    /** Inline flushes, one at a time: `slow` of them take 30 ms (a slow eMMC), then `fast` take 0.2 ms. */
    const flushInline = async (slow: number, fast = 0) => {
      for (let i = 0; i < slow + fast; i++) {
        flushMs = i < slow ? 30 : 0.2;
        await write(i);
      }
      flushMs = 0.2;
    };

    it('a slow disk sends flushes to the thread pool; a fast probe later brings them back inline', async () => {
      await flushInline(FLUSH_WINDOW / 2); // half of the window slow: still inline
      expect(inlineFlushes).toHaveLength(FLUSH_WINDOW / 2);
      await flushInline(1); // more than half
      expect(inlineFlushes).toHaveLength(FLUSH_WINDOW / 2 + 1);
      const pooled = write(2);
      expect(kv.get('k')).toBe(2); // thread-pool rule: committed at once, its flush started
      expect(flushes).toHaveLength(1);
      flushes[0].done();
      await pooled;
      expect(inlineFlushes).toHaveLength(FLUSH_WINDOW / 2 + 1);
      clock += FIRST_PROBE_MS; // a probe is due: the next flush runs inline again
      await write(3);
      expect(inlineFlushes).toHaveLength(FLUSH_WINDOW / 2 + 2);
      await write(4); // the probe was fast: inline again
      await flushInline(FLUSH_WINDOW / 2); // and the window starts clean
      expect(inlineFlushes).toHaveLength(FLUSH_WINDOW + 3);
      expect(flushes).toHaveLength(1);
    });

    it("slow flushes now and then (a fast disk's tail) keep flushes inline", async () => {
      for (let i = 0; i < 4; i++) await flushInline(FLUSH_WINDOW / 2, FLUSH_WINDOW / 2);
      expect(inlineFlushes).toHaveLength(4 * FLUSH_WINDOW);
      expect(flushes).toHaveLength(0);
    });

    it('a slow probe keeps the thread pool and waits twice as long for the next', async () => {
      await flushInline(FLUSH_WINDOW / 2 + 1);
      clock += FIRST_PROBE_MS;
      flushMs = 30;
      await write(2); // the probe, slow again
      flushMs = 0.2;
      expect(inlineFlushes).toHaveLength(FLUSH_WINDOW / 2 + 2);
      const pooled = write(3);
      expect(flushes).toHaveLength(1);
      flushes[0].done();
      await pooled;
      clock += FIRST_PROBE_MS; // not yet: the interval doubled
      const stillPooled = write(4);
      expect(flushes).toHaveLength(2);
      flushes[1].done();
      await stillPooled;
      clock += FIRST_PROBE_MS;
      await write(5);
      expect(inlineFlushes).toHaveLength(FLUSH_WINDOW / 2 + 3);
    });
  });
});
