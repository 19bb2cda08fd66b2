import type { Migration } from './migration.js';

/** Key/value settings (JSON values) and the persisted configuration (one JSON document). */
export const foundation: Migration = {
  version: 1,
  name: 'foundation',
  up(db) {
    db.exec(`
      CREATE TABLE kv (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL
      ) STRICT;
      CREATE TABLE persisted_config (
        id     INTEGER PRIMARY KEY CHECK (id = 1),
        config TEXT NOT NULL
      ) STRICT;
    `);
  },
};
