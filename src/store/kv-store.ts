/**
 * Small persisted settings as JSON values under well-known keys (KV_KEYS).
 * Every write is its own fsync'd transaction unless the caller wraps several in `db.transaction`.
 *
 * Reads are cached: settings such as user data are polled by clients, and a unit's data directory
 * belongs to one server process, so the table only changes through these stores. The cache is shared
 * by every store on the same database, a write invalidates its key, and nothing read inside a
 * transaction is cached, so a rolled-back write can never leave a stale value behind.
 */
import type Database from 'better-sqlite3';
import { type StorageGate, storageGateOf } from './storage-gate.js';

/** JSON text per key (null: no such key), per database. */
const readCaches = new WeakMap<Database.Database, Map<string, string | null>>();

export { KV_KEYS } from './kv-keys.js';

/** Drops what was read of `db` (its connection moved to another file: src/store/pending-repair.ts). */
export function forgetCachedReads(db: Database.Database): void {
  readCaches.get(db)?.clear();
}

export class KvStore {
  private readonly getStmt;
  private readonly setStmt;
  private readonly deleteStmt;

  private readonly cache: Map<string, string | null>;
  private readonly gate: StorageGate;

  constructor(readonly db: Database.Database) {
    let cache = readCaches.get(db);
    if (!cache) readCaches.set(db, (cache = new Map()));
    this.cache = cache;
    this.gate = storageGateOf(db);
    this.getStmt = db.prepare<[string], { value: string }>('SELECT value FROM kv WHERE key = ?');
    this.setStmt = db.prepare<[string, string]>(
      'INSERT INTO kv (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
    );
    this.deleteStmt = db.prepare<[string]>('DELETE FROM kv WHERE key = ?');
  }

  get<T>(key: string): T | undefined {
    let text = this.cache.get(key);
    if (text === undefined) {
      text = this.getStmt.get(key)?.value ?? null;
      if (!this.db.inTransaction) this.cache.set(key, text);
    }
    return text === null ? undefined : (JSON.parse(text) as T);
  }

  set(key: string, value: unknown): void {
    this.gate.check('adds');
    this.cache.delete(key);
    this.setStmt.run(key, JSON.stringify(value));
  }

  delete(key: string): void {
    this.gate.check('frees');
    this.cache.delete(key);
    this.deleteStmt.run(key);
  }
}
