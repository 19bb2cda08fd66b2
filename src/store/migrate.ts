/** The schema migrations, applied in order at every start (src/store/migrations/). */
import type Database from 'better-sqlite3';
import { utcIsoString } from '../model/index.js';
import { MIGRATIONS } from './migrations/index.js';

/**
 * Applies every migration not yet recorded, in version order, each in one transaction with its record.
 * Recording each version (rather than only the highest, as `user_version` would) means a migration
 * numbered below one already applied (two branches merged) is still applied.
 */
export function applyMigrations(db: Database.Database): void {
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
