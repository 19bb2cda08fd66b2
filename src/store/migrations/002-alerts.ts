import type { Migration } from './migration.js';

/**
 * The alert log (src/alerts/alert-store-sqlite.ts): one state row (next_cursor, overflow flag),
 * the last 32 log entries in the order they were logged, and the active alerts. One small
 * transaction per logged event.
 */
export const alerts: Migration = {
  version: 2,
  name: 'alerts',
  up(db) {
    db.exec(`
      CREATE TABLE alert_state (
        id          INTEGER PRIMARY KEY CHECK (id = 1),
        next_cursor INTEGER NOT NULL CHECK (next_cursor BETWEEN 0 AND 4294967295),
        overflowed  INTEGER NOT NULL CHECK (overflowed IN (0, 1))
      ) STRICT;
      CREATE TABLE alert_log (
        seq    INTEGER PRIMARY KEY,
        cursor INTEGER NOT NULL UNIQUE CHECK (cursor BETWEEN 0 AND 4294967295),
        entry  TEXT NOT NULL
      ) STRICT;
      CREATE TABLE alert_active (
        id           TEXT PRIMARY KEY,
        cursor       INTEGER NOT NULL,
        entry        TEXT NOT NULL
      ) STRICT;
    `);
  },
};
