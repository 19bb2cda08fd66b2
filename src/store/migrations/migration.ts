import type Database from 'better-sqlite3';

/** One schema step. Versions are unique, increasing integers; a migration never changes once released. */
export interface Migration {
  version: number;
  name: string;
  up(db: Database.Database): void;
}
