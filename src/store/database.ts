/**
 * The one SQLite database of the unit, in the data directory.
 * WAL + synchronous=FULL: a write acknowledged to a client has been fsync'd and survives power loss.
 */
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { utcIsoString } from '../model/index.js';
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

/**
 * Applies every migration not yet recorded, in version order, each in one transaction with its record.
 * Recording each version (rather than only the highest, as `user_version` would) means a migration
 * numbered below one already applied (two branches merged) is still applied.
 */
export function applyMigrations(db: SqliteDatabase): void {
  const versions = MIGRATIONS.map((m) => m.version);
  if (new Set(versions).size !== versions.length)
    throw new Error(`duplicate migration versions: ${versions.join(', ')}`);
  const tracked =
    db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get() !== undefined;
  db.exec(
    'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL) STRICT',
  );
  if (!tracked) {
    // A database from before per-version records: everything up to its user_version was applied.
    const previous = db.pragma('user_version', { simple: true }) as number;
    const seed = db.prepare<[number, string]>(
      "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, 'before per-version records')",
    );
    for (const m of MIGRATIONS) if (m.version <= previous) seed.run(m.version, m.name);
  }
  const applied = new Set(
    db
      .prepare<[], { version: number }>('SELECT version FROM schema_migrations')
      .all()
      .map((r) => r.version),
  );
  const record = db.prepare<[number, string, string]>(
    'INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)',
  );
  for (const migration of [...MIGRATIONS].sort((a, b) => a.version - b.version)) {
    if (applied.has(migration.version)) continue;
    db.transaction(() => {
      migration.up(db);
      record.run(migration.version, migration.name, utcIsoString(Date.now()));
      db.pragma(`user_version = ${Math.max(migration.version, db.pragma('user_version', { simple: true }) as number)}`);
    })();
  }
}
