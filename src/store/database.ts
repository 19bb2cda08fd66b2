/**
 * The one SQLite database of the unit, in the data directory.
 * WAL + synchronous=FULL: a write acknowledged to a client has been fsync'd and survives power loss.
 */
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { applyMigrations } from './migrate.js';
import { PendingRepair } from './pending-repair.js';
import { repairStore } from './store-recovery.js';

export { applyMigrations } from './migrate.js';

export type SqliteDatabase = Database.Database;

export const DATABASE_FILE = 'sensor.db';

export interface OpenedStore {
  db: SqliteDatabase;
  /** Set when the database is damaged and the disk has no room to repair it: `db` is a read-only view until then. */
  pending?: PendingRepair;
}

/**
 * Opens (or creates) the database, checked first: a damaged one is rebuilt from what can be read
 * (src/store/store-recovery.ts), so opening never fails for what the file holds; without room to
 * rebuild it, the store is a read-only view of it that repairs itself once there is room.
 */
export function openStore(dataDir: string): OpenedStore {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, DATABASE_FILE);
  const outcome = repairStore(path);
  if (outcome.state === 'waiting') {
    const pending = PendingRepair.view(path, outcome.reason, outcome.shortage, openFile);
    return { db: pending.db, pending };
  }
  return { db: openFile(path) };
}

/** `openStore` for callers that start no unit (tools and tests on a sound directory). */
export function openDatabase(dataDir: string): SqliteDatabase {
  return openStore(dataDir).db;
}

function openFile(path: string): SqliteDatabase {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  // Another process (a second server on the same directory) waits briefly instead of failing at once.
  db.pragma('busy_timeout = 2000');
  applyMigrations(db);
  return db;
}
