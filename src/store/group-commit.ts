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
import { open } from 'node:fs/promises';
import type { SqliteDatabase } from './database.js';

/** Makes everything written to the WAL file so far durable. */
export type WalSync = (walPath: string) => Promise<void>;

export const fdatasyncFile: WalSync = async (path) => {
  const file = await open(path, 'r+');
  try {
    await file.datasync();
  } finally {
    await file.close();
  }
};

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

  constructor(
    private readonly db: SqliteDatabase,
    private readonly sync: WalSync = fdatasyncFile,
  ) {}

  /** Runs `write` as one transaction; resolves with its result once the transaction is durable. */
  async commit<T>(write: () => T): Promise<T> {
    if (this.db.inTransaction) return write(); // part of a caller's transaction: its commit decides
    this.db.pragma('synchronous = NORMAL');
    let result: T;
    try {
      result = this.db.transaction(write)();
    } finally {
      this.db.pragma('synchronous = FULL');
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
