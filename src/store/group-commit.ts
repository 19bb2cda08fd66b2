/**
 * Group commit for the database's hot client writes (user data). A write that finds no flush in
 * flight commits at once on the event loop, in its own small transaction, without waiting for the
 * disk (synchronous=NORMAL for that transaction: WAL frames written, not yet fsync'd); then an
 * fdatasync of the WAL starts. Writes that arrive while that flush runs are queued and committed
 * together at the end of their turn of the event loop (or when the flush ends, if sooner), in arrival
 * order, as one transaction (a savepoint each, so a write that throws is undone alone and the others
 * go on), while the flush still runs; the next flush starts the moment it ends, for every write
 * committed meanwhile. Concurrent writers thus share transactions and one disk flush instead of one
 * of each per write (and the WAL receives the pages they changed once per transaction), and no
 * commit waits between two flushes. The fdatasync runs on libuv's thread
 * pool, off the event loop. A caller answers its client only after its promise resolves, which is
 * after a flush that began after its commit: acknowledged still means durable. (In WAL mode,
 * synchronous=NORMAL keeps the database consistent across power loss; the explicit fdatasync of the
 * WAL restores durability.)
 *
 * Every other write of the unit keeps synchronous=FULL (its own fsync inside the commit), which also
 * makes any earlier group-committed frames durable, as they precede it in the WAL.
 */
import { open, type FileHandle } from 'node:fs/promises';
import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from './database.js';

/** Makes everything written to the WAL file so far durable. */
export type WalSync = (walPath: string) => Promise<void>;

/**
 * fdatasync through one handle of the WAL file, held open until `close`: a flush is then one trip
 * to the thread pool instead of three (open, datasync, close), which on a virtual machine's disk
 * costs more CPU than the flush itself. SQLite keeps the WAL file (the same inode, reset or
 * truncated in place) for as long as the database is open; the handle is closed before it.
 */
class HeldWalSync {
  private file: Promise<FileHandle> | undefined;

  readonly sync: WalSync = async (walPath) => {
    const opening = (this.file ??= open(walPath, 'r+'));
    try {
      await (await opening).datasync();
    } catch (error) {
      // Reopen on the next flush: the handle may be what failed.
      if (this.file === opening) this.file = undefined;
      await opening.then((file) => file.close()).catch(() => undefined);
      throw error;
    }
  };

  async close(): Promise<void> {
    const opening = this.file;
    this.file = undefined;
    await opening?.then((file) => file.close()).catch(() => undefined);
  }
}

interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * A write not yet committed: it runs in the next batch's transaction, inside its own savepoint; once
 * committed, it waits for the flush as a `Waiter` answered with the write's result.
 */
class QueuedWrite implements Waiter {
  result: unknown;
  constructor(
    readonly write: () => unknown,
    private readonly done: (result: unknown) => void,
    readonly reject: (error: unknown) => void,
  ) {}

  resolve(): void {
    this.done(this.result);
  }
}

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

  private readonly held = new HeldWalSync();
  private readonly sync: WalSync;

  /** `sync` replaces the disk flush (tests); by default the WAL is flushed through a held handle. */
  constructor(
    private readonly db: SqliteDatabase,
    sync?: WalSync,
  ) {
    this.sync = sync ?? this.held.sync;
  }

  /** Waits for the flush in flight (and the writes queued behind it) and lets go of the WAL file: call before closing the database. */
  async close(): Promise<void> {
    await this.pending()?.catch(() => undefined);
    await this.held.close();
  }

  /**
   * The statements around every batch, prepared once: `db.pragma()` and `db.transaction()` prepare
   * (and wrap) anew on every call, which cost more CPU than the write itself.
   */
  private statements:
    | {
        normal: Statement;
        full: Statement;
        begin: Statement;
        commit: Statement;
        rollback: Statement;
        savepoint: Statement;
        release: Statement;
        rollbackTo: Statement;
      }
    | undefined;

  private prepared() {
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
   * rejects (and `write` changed nothing) when it throws. With no flush in flight the write commits
   * at once; otherwise it is committed at the end of this turn (or when the flush ends, if sooner),
   * in arrival order, in one transaction with the other writes of the turn (each in its own
   * savepoint: one that throws is undone alone), and waits for the flush after the one in flight.
   */
  commit<T>(write: () => T): Promise<T> {
    if (this.db.inTransaction) {
      // Part of a caller's transaction: its commit decides.
      try {
        return Promise.resolve(write());
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return new Promise<T>((resolve, reject) => {
      this.queued.push(new QueuedWrite(write, resolve as (result: unknown) => void, reject));
      if (!this.flushing) this.commitQueued();
      else if (!this.commitScheduled) {
        // Every write that arrives in this turn shares one transaction, committed while the flush runs.
        this.commitScheduled = true;
        setImmediate(this.commitTurn);
      }
    });
  }

  /** Commits are waiting for a flush: a promise of their durability; undefined when all are durable. */
  pending(): Promise<void> | undefined {
    if (!this.flushing) return undefined;
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

  /** One transaction of `batch`, a savepoint per write; returns the writes it committed. */
  private runBatch(batch: QueuedWrite[]): QueuedWrite[] {
    const committed: QueuedWrite[] = [];
    let sql: ReturnType<GroupCommit['prepared']> | undefined;
    try {
      sql = this.prepared();
      sql.normal.run();
      sql.begin.run();
      for (const entry of batch) {
        sql.savepoint.run();
        try {
          entry.result = entry.write();
        } catch (error) {
          // SQLite may have ended the whole transaction (then the batch fails below); else this write
          // alone is undone and the others go on.
          if (!this.db.inTransaction) throw error;
          sql.rollbackTo.run();
          sql.release.run();
          entry.reject(error);
          continue;
        }
        sql.release.run();
        committed.push(entry);
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
      committed.length = 0;
    } finally {
      if (sql && this.db.open) sql.full.run();
    }
    return committed;
  }

  private flush(): void {
    this.flushing = true;
    const settle = (outcome: (w: Waiter) => void) => {
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
    };
    this.sync(`${this.db.name}-wal`).then(
      () => settle((w) => w.resolve()),
      (error: unknown) => settle((w) => w.reject(error)),
    );
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
