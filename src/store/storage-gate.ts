/**
 * The fault plane's way into the store (the `storage` unit action, docs/faults.md): while a fault is
 * set, the store's writes fail as the disk would make them fail, with SQLite's own codes, so every
 * layer above sees exactly what a real full disk or failing flash gives it. A full disk still lets a
 * write through that only removes (deleting the user data): on a real one that fits in the space the
 * write-ahead log already holds. An I/O error fails every write. Reads are never touched.
 */
import type Database from 'better-sqlite3';
import type { StorageFaultError } from '../model/index.js';

export type StorageFault = StorageFaultError;

/**
 * What a write does to the space it needs; `record`: a record the unit keeps for itself (the alert log),
 * which adds like any write but is no change a client asked for.
 */
export type WriteKind = 'adds' | 'frees' | 'record';

const SQLITE_ERRORS: Record<StorageFault, { code: string; message: string }> = {
  ENOSPC: { code: 'SQLITE_FULL', message: 'database or disk is full (injected storage fault)' },
  EIO: { code: 'SQLITE_IOERR', message: 'disk I/O error (injected storage fault)' },
};

const HELD_ERROR = {
  code: 'SQLITE_FULL',
  message: 'database or disk is full (no room to repair the damaged database: it is read-only until there is)',
  hint:
    'the damaged database waits for room to be repaired, and the unit is read-only until then (deletes too); ' +
    'reads still work; free space on the data partition and the unit repairs it by itself',
};

export class StorageGate {
  private fault: StorageFault | undefined;
  private held = false;

  /** From now on writes fail with `fault`; undefined: they work again. */
  set(fault: StorageFault | undefined): void {
    this.fault = fault;
  }

  /**
   * While held, the database is a read-only view of a damaged one that waits for room to be repaired
   * (src/store/pending-repair.ts): every change is refused as a full disk refuses it, deletes too (nothing
   * written there would be kept); the unit's own records go into the view.
   */
  hold(held: boolean): void {
    this.held = held;
  }

  /** Throws the error the disk would give a write of this kind now; returns when it may go ahead. */
  check(kind: WriteKind): void {
    if (this.held && kind !== 'record')
      throw Object.assign(new Error(HELD_ERROR.message), { code: HELD_ERROR.code, hint: HELD_ERROR.hint });
    const fault = this.fault;
    if (fault === undefined || (fault === 'ENOSPC' && kind === 'frees')) return;
    const { code, message } = SQLITE_ERRORS[fault];
    throw Object.assign(new Error(message), { code });
  }
}

const perDatabase = new WeakMap<Database.Database, StorageGate>();

/** The one gate of a database: every writer of it and the fault plane share it. */
export function storageGateOf(db: Database.Database): StorageGate {
  let gate = perDatabase.get(db);
  if (!gate) perDatabase.set(db, (gate = new StorageGate()));
  return gate;
}
