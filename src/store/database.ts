/**
 * The one SQLite database of the unit, in the data directory.
 * WAL + synchronous=FULL: a write acknowledged to a client has been fsync'd and survives power loss.
 */
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { MIGRATIONS } from './migrations/index.js';

export type SqliteDatabase = Database.Database;

export const DATABASE_FILE = 'sensor.db';

export function openDatabase(dataDir: string): SqliteDatabase {
  mkdirSync(dataDir, { recursive: true });
  const db = new Database(join(dataDir, DATABASE_FILE));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  // Another process (a second server on the same directory) waits briefly instead of failing at once.
  db.pragma('busy_timeout = 2000');
  applyMigrations(db);
  return db;
}

/** Applies the numbered migrations not yet applied, each in its own transaction with its version bump. */
export function applyMigrations(db: SqliteDatabase): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  const versions = MIGRATIONS.map((m) => m.version);
  if (new Set(versions).size !== versions.length) throw new Error(`duplicate migration versions: ${versions.join(', ')}`);
  for (const migration of [...MIGRATIONS].sort((a, b) => a.version - b.version)) {
    if (migration.version <= current) continue;
    db.transaction(() => {
      migration.up(db);
      db.pragma(`user_version = ${migration.version}`);
    })();
  }
}
