/**
 * Group commit for the database's hot client writes (user data): each write is its own small
 * transaction committed at once on the event loop without waiting for the disk (synchronous=NORMAL
 * for that transaction: WAL frames written, not yet fsync'd), then waits for an fdatasync of the WAL
 * that began after its commit. The fdatasync runs on libuv's thread pool, off the event loop; writes
 * that commit while one is in flight all wait for the next one, so N concurrent writers share one
 * disk flush instead of queueing N of them. A caller answers its client only after its promise
 * resolves: acknowledged still means durable. (In WAL mode, synchronous=NORMAL keeps the database
 * consistent across power loss; the explicit fdatasync of the WAL restores durability.)
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

export class GroupCommit {
  private flushing = false;
  /** Waiting for the flush in flight. */
  private current: Waiter[] = [];
  /** Committed while a flush was in flight (it may have begun before their commit): the next flush. */
  private next: Waiter[] = [];

  private readonly held = new HeldWalSync();
  private readonly sync: WalSync;

  /** `sync` replaces the disk flush (tests); by default the WAL is flushed through a held handle. */
  constructor(
    private readonly db: SqliteDatabase,
    sync?: WalSync,
  ) {
    this.sync = sync ?? this.held.sync;
  }

  /** Waits for the flush in flight and lets go of the WAL file: call before closing the database. */
  async close(): Promise<void> {
    await this.pending()?.catch(() => undefined);
    await this.held.close();
  }

  /**
   * The statements around every write, prepared once: `db.pragma()` and `db.transaction()` prepare
   * (and wrap) anew on every call, which cost more CPU than the write itself.
   */
  private statements:
    | { normal: Statement; full: Statement; begin: Statement; commit: Statement; rollback: Statement }
    | undefined;

  private prepared() {
    this.statements ??= {
      normal: this.db.prepare('PRAGMA synchronous = NORMAL'),
      full: this.db.prepare('PRAGMA synchronous = FULL'),
      begin: this.db.prepare('BEGIN'),
      commit: this.db.prepare('COMMIT'),
      rollback: this.db.prepare('ROLLBACK'),
    };
    return this.statements;
  }

  /** Runs `write` as one transaction; resolves with its result once the transaction is durable. */
  async commit<T>(write: () => T): Promise<T> {
    if (this.db.inTransaction) return write(); // part of a caller's transaction: its commit decides
    const sql = this.prepared();
    sql.normal.run();
    let result: T;
    try {
      sql.begin.run();
      try {
        result = write();
        sql.commit.run();
      } catch (error) {
        // A failed write (or commit) leaves nothing behind; SQLite may have rolled back already.
        if (this.db.inTransaction) sql.rollback.run();
        throw error;
      }
    } finally {
      sql.full.run();
    }
    await this.durable();
    return result;
  }

  /** Commits are waiting for a flush: a promise of their durability; undefined when all are durable. */
  pending(): Promise<void> | undefined {
    if (!this.flushing) return undefined;
    // The last commit waits in `next` when there is one, else for the flush in flight.
    const list = this.next.length ? this.next : this.current;
    return new Promise((resolve, reject) => list.push({ resolve, reject }));
  }

  private durable(): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.flushing) {
        this.next.push({ resolve, reject });
      } else {
        this.current = [{ resolve, reject }];
        this.flush();
      }
    });
  }

  private flush(): void {
    this.flushing = true;
    const settle = (outcome: (w: Waiter) => void) => {
      const done = this.current;
      this.current = [];
      this.flushing = false;
      for (const waiter of done) outcome(waiter);
      if (this.next.length) {
        this.current = this.next;
        this.next = [];
        this.flush();
      }
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
