/** Schema migrations: applied once each, recorded per version, a lower-numbered late one still applied. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect, it } from 'vitest';
import { applyMigrations, openDatabase } from '../../src/store/database.js';
import { MIGRATIONS } from '../../src/store/migrations/index.js';

it('applies every migration once and records each version', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sensor-db-'));
  const db = openDatabase(dir);
  const recorded = db
    .prepare('SELECT version FROM schema_migrations ORDER BY version')
    .all()
    .map((r) => (r as { version: number }).version);
  expect(recorded).toEqual(MIGRATIONS.map((m) => m.version).sort((a, b) => a - b));
  applyMigrations(db); // a second start changes nothing and does not fail on existing tables
  expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
  expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
  expect(db.pragma('synchronous', { simple: true })).toBe(2); // FULL
  db.close();
});

it('applies a migration numbered below one already applied', () => {
  const db = new Database(':memory:');
  const highest = [...MIGRATIONS].sort((a, b) => b.version - a.version)[0];
  db.exec(
    'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL) STRICT',
  );
  // Pretend only the foundation and the highest migration ran (as after merging two branches).
  for (const m of MIGRATIONS.filter((m) => m.version === 1 || m.version === highest.version)) {
    m.up(db);
    db.prepare('INSERT INTO schema_migrations VALUES (?, ?, ?)').run(m.version, m.name, 'then');
  }
  applyMigrations(db);
  const recorded = db
    .prepare('SELECT version FROM schema_migrations ORDER BY version')
    .all()
    .map((r) => (r as { version: number }).version);
  expect(recorded).toEqual(MIGRATIONS.map((m) => m.version).sort((a, b) => a - b));
});

it('opens a database that recorded its schema only in user_version', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sensor-db-'));
  const old = new Database(join(dir, 'sensor.db'));
  for (const m of MIGRATIONS) m.up(old);
  old.pragma(`user_version = ${Math.max(...MIGRATIONS.map((m) => m.version))}`);
  old.close();
  const db = openDatabase(dir);
  expect(db.prepare('SELECT count(*) AS n FROM schema_migrations').get()).toEqual({ n: MIGRATIONS.length });
  db.close();
});
