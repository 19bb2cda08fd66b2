/**
 * Group commit for the database's hot client writes (user data). Writes are committed in batches, in
 * arrival order, as one transaction (a savepoint each, so a write that throws is undone alone and the
 * others go on) with synchronous=NORMAL (WAL frames written, not yet fsync'd); then one fdatasync of
 * the WAL makes the batch durable, and only then are its writes answered: acknowledged still means
 * durable. (In WAL mode, synchronous=NORMAL keeps the database consistent across power loss; the
 * explicit fdatasync of the WAL restores durability.) Concurrent writers thus share transactions and
 * one disk flush instead of one of each per write, and the WAL receives the pages they changed once
 * per transaction; writes that replace the same rows whole (`replace`) run only the batch's last.
 *
 * Where the flush runs decides how batches form (the rule is in flush-policy.ts):
 * - Inline, on the event loop, while flushes are fast: the writes that arrive in one turn of the event
 *   loop are committed at its end, then flushed at once, then answered. Requests that arrive while the
 *   loop is blocked in the flush make up the next turn's batch.
 * - On libuv's thread pool, when flushes are slow: a write that finds no flush in flight commits at
 *   once and its flush starts; writes that arrive while that flush runs are committed together at the
 *   end of their turn (or when the flush ends, if sooner), while the flush still runs; the next flush
 *   starts the moment it ends, for every write committed meanwhile, so no commit waits between two
 *   flushes.
 * Either way a write is answered only after a flush that began after its commit.
 *
 * Every other write of the unit keeps synchronous=FULL (its own fsync inside the commit), which also
 * makes any earlier group-committed frames durable, as they precede it in the WAL. The flush itself is
 * held-wal.ts's; a queued write, queued-write.ts.
 */
import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from './database.js';
import { FlushPolicy } from './flush-policy.js';
import { HeldWal, type InlineWalSync, type WalSync } from './held-wal.js';
import { keyedLast, QueuedWrite, type Waiter } from './queued-write.js';

/** The statements around every batch (`GroupCommit.prepared`). */
type BatchStatements = Record<
  'normal' | 'full' | 'begin' | 'commit' | 'rollback' | 'savepoint' | 'release' | 'rollbackTo',
  Statement
>;

export class GroupCommit {
  private flushing = false;
  /** Waiting for the flush in flight. */
  private current: Waiter[] = [];
  /** Arrived while a flush was in flight: committed together, in order, at the end of this turn of the event loop. */
  private queued: QueuedWrite[] = [];
  /** `pending()` callers waiting for the queued writes to be durable. */
  private queuedReaders: Waiter[] = [];
  /** Committed while a flush was in flight (it may have begun before their commit): the next flush. */
  private next: Waiter[] = [];
  private commitScheduled = false;
  private readonly commitTurn = () => {
    this.commitScheduled = false;
    if (this.queued.length) this.commitQueued();
  };

  private readonly held = new HeldWal(() => {
    // Frames (a 24-byte header and a page each) between two automatic checkpoints, and the WAL header.
    const page = this.db.pragma('page_size', { simple: true }) as number;
    const frames = this.db.pragma('wal_autocheckpoint', { simple: true }) as number;
    return 32 + frames * (page + 24);
  });
  private readonly sync: WalSync;
  private readonly inline: InlineWalSync | undefined;

  /**
   * `sync` and `inline` replace the disk flush (tests). By default the WAL is flushed through a held
   * descriptor, inline or on the thread pool as a FlushPolicy decides; with `sync` alone, always on the
   * thread pool.
   */
  constructor(
    private readonly db: SqliteDatabase,
    sync?: WalSync,
    inline?: InlineWalSync,
  ) {
    this.sync = sync ?? this.held.sync;
    this.inline = inline ?? (sync ? undefined : { sync: this.held.syncNow, policy: new FlushPolicy() });
  }

  /** Waits for the flush in flight (and the writes queued behind it) and lets go of the WAL file: call before closing the database. */
  async close(): Promise<void> {
    await this.pending()?.catch(() => undefined);
    this.held.close();
  }

  /**
   * The statements around every batch, prepared once: `db.pragma()` and `db.transaction()` prepare
   * (and wrap) anew on every call, which cost more CPU than the write itself.
   */
  private statements: BatchStatements | undefined;

  private prepared(): BatchStatements {
    this.statements ??= {
      normal: this.db.prepare('PRAGMA synchronous = NORMAL'),
      full: this.db.prepare('PRAGMA synchronous = FULL'),
      begin: this.db.prepare('BEGIN'),
      commit: this.db.prepare('COMMIT'),
      rollback: this.db.prepare('ROLLBACK'),
      savepoint: this.db.prepare('SAVEPOINT group_write'),
      release: this.db.prepare('RELEASE group_write'),
      rollbackTo: this.db.prepare('ROLLBACK TO group_write'),
    };
    return this.statements;
  }

  /**
   * Runs `write` in a transaction; resolves with its result once that transaction is durable, or
   * rejects (and `write` changed nothing) when it throws. It is committed at the end of this turn, in
   * arrival order, in one transaction with the other writes of the turn (each in its own savepoint:
   * one that throws is undone alone): then flushed at once when the flush runs inline, or, on the
   * thread pool, by the flush after the one in flight (or when that flush ends, if sooner). A write
   * that finds no thread-pool flush in flight commits at once and starts one.
   */
  commit<T>(write: () => T): Promise<T> {
    return this.enqueue(write);
  }

  /**
   * `commit` for a write that sets everything under `key` whatever was there (its rows are written by
   * writes of this key only, and it returns nothing): of several such writes in one batch only the
   * last runs, and the others are committed as overwritten by it (answered with it, after the flush).
   * Their effect is the same as running them all in order inside the one transaction, since nothing
   * sees the state between them; SQLite is spared their statements. If the last one throws it is
   * undone alone and the one before runs in its place, and so on.
   */
  replace(key: string, write: () => void): Promise<void> {
    return this.enqueue(write, key);
  }

  private enqueue<T>(write: () => T, key?: string): Promise<T> {
    if (this.db.inTransaction) {
      // Part of a caller's transaction: its commit decides.
      try {
        return Promise.resolve(write());
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return new Promise<T>((resolve, reject) => {
      this.queued.push(new QueuedWrite(write, resolve as (result: unknown) => void, reject, key));
      if (!this.flushing && !this.inline?.policy.inline()) this.commitQueued();
      else if (!this.commitScheduled) {
        // Every write that arrives in this turn shares one transaction (and, inline, one flush).
        this.commitScheduled = true;
        setImmediate(this.commitTurn);
      }
    });
  }

  /** Commits are waiting for a flush: a promise of their durability; undefined when all are durable. */
  pending(): Promise<void> | undefined {
    if (!this.flushing && !this.queued.length) return undefined;
    // The last write waits in the queue when there is one, else for the flush in flight.
    const list = this.queued.length ? this.queuedReaders : this.next.length ? this.next : this.current;
    return new Promise((resolve, reject) => list.push({ resolve, reject }));
  }

  /**
   * Commits every queued write as one transaction (synchronous=NORMAL for it: a flush that begins
   * after it makes it durable). While a flush is in flight they wait for the next one; otherwise that
   * flush starts now, for them, the readers waiting on them and `alreadyCommitted`.
   */
  private commitQueued(alreadyCommitted: Waiter[] = []): void {
    const batch = this.queued;
    const readers = this.queuedReaders;
    this.queued = [];
    this.queuedReaders = [];
    const committed: Waiter[] = this.runBatch(batch);
    if (this.flushing) {
      // Durable with the flush after the one in flight.
      for (const entry of committed) this.next.push(entry);
      for (const reader of readers) (committed.length ? this.next : this.current).push(reader);
      return;
    }
    if (committed.length === 0 && alreadyCommitted.length === 0) {
      // Every write failed: nothing new to make durable, and everything before is.
      for (const reader of readers) reader.resolve();
      return;
    }
    this.current = alreadyCommitted.concat(committed, readers);
    this.flush();
  }

  /** One transaction of `batch`, a savepoint per write run; returns the writes it committed, in order. */
  private runBatch(batch: QueuedWrite[]): QueuedWrite[] {
    let sql: BatchStatements | undefined;
    try {
      sql = this.prepared();
      sql.normal.run();
      sql.begin.run();
      const lastOfKey = keyedLast(batch);
      for (let i = 0; i < batch.length; i++) {
        const entry = batch[i];
        if (entry.key === undefined) entry.committed = this.runWrite(sql, entry);
        else if (lastOfKey?.get(entry.key) === i) this.runLastOfKey(sql, batch, i);
        // else: decided with the last write of its key, further on.
      }
      sql.commit.run();
    } catch (error) {
      // A failed commit, or a failure SQLite answered by rolling everything back: the batch fails
      // whole (a write already refused stays refused; a promise settles once).
      try {
        if (this.db.open && this.db.inTransaction) sql?.rollback.run();
      } finally {
        for (const entry of batch) entry.reject(error);
      }
      return [];
    } finally {
      if (sql && this.db.open) sql.full.run();
    }
    return batch.filter((entry) => entry.committed);
  }

  /** Runs `entry` in its own savepoint; false (and it is refused, undone alone) when it throws. */
  private runWrite(sql: BatchStatements, entry: QueuedWrite): boolean {
    sql.savepoint.run();
    try {
      entry.result = entry.write();
    } catch (error) {
      // SQLite may have ended the whole transaction (then the batch fails); else this write alone
      // is undone and the others go on.
      if (!this.db.inTransaction) throw error;
      sql.rollbackTo.run();
      sql.release.run();
      entry.reject(error);
      return false;
    }
    sql.release.run();
    return true;
  }

  /**
   * The writes of `batch[last]`'s key, of which it is the last: the latest that runs without throwing
   * decides their rows, and every earlier one is committed as overwritten by it.
   */
  private runLastOfKey(sql: BatchStatements, batch: QueuedWrite[], last: number): void {
    const key = batch[last].key;
    let i = last;
    for (; i >= 0; i--) if (batch[i].key === key && this.runWrite(sql, batch[i])) break;
    for (; i >= 0; i--) if (batch[i].key === key) batch[i].committed = true;
  }

  /** Makes `current` durable, inline or on the thread pool, and answers it. */
  private flush(): void {
    this.flushing = true;
    const walPath = `${this.db.name}-wal`;
    const inline = this.inline;
    if (inline?.policy.inline()) {
      // Nothing can commit while the loop is blocked here: the batch is answered right after.
      try {
        inline.policy.timeInline(() => inline.sync(walPath));
      } catch (error) {
        this.settle((w) => w.reject(error));
        return;
      }
      this.settle((w) => w.resolve());
      return;
    }
    this.sync(walPath).then(
      () => this.settle((w) => w.resolve()),
      (error: unknown) => this.settle((w) => w.reject(error)),
    );
  }

  /** The flush of `current` is over: answers it, after starting whatever became due meanwhile. */
  private settle(outcome: (w: Waiter) => void): void {
    const done = this.current;
    this.current = [];
    this.flushing = false;
    // What arrived during this flush and is not committed yet commits now; then the next flush
    // starts for everything committed meanwhile, before these are answered.
    const committed = this.next;
    this.next = [];
    if (this.queued.length) this.commitQueued(committed);
    else if (committed.length) {
      this.current = committed;
      this.flush();
    }
    for (const waiter of done) outcome(waiter);
  }
}

const perDatabase = new WeakMap<SqliteDatabase, GroupCommit>();

/** The one group commit of a database: every writer of it must share one, so flushes are shared. */
export function groupCommitOf(db: SqliteDatabase): GroupCommit {
  let group = perDatabase.get(db);
  if (!group) perDatabase.set(db, (group = new GroupCommit(db)));
  return group;
}

/** Before the database closes: the group's pending flush completes and its WAL handle is closed. */
export async function closeGroupCommit(db: SqliteDatabase): Promise<void> {
  await perDatabase.get(db)?.close();
}
