/**
 * The one SQLite database of the unit, in the data directory.
 * WAL + synchronous=FULL: a write acknowledged to a client has been fsync'd and survives power loss.
 */
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { applyMigrations } from './migrate.js';
import { repairStore } from './store-recovery.js';

export { applyMigrations } from './migrate.js';

export type SqliteDatabase = Database.Database;

export const DATABASE_FILE = 'sensor.db';

/**
 * Opens (or creates) the database, checked first: a damaged one is rebuilt from what can be read
 * (src/store/store-recovery.ts), so opening never fails for what the file holds.
 */
export function openDatabase(dataDir: string): SqliteDatabase {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, DATABASE_FILE);
  repairStore(path);
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  // Another process (a second server on the same directory) waits briefly instead of failing at once.
  db.pragma('busy_timeout = 2000');
  applyMigrations(db);
  return db;
}
