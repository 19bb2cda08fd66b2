/**
 * Small persisted settings as JSON values under well-known keys (KV_KEYS).
 * Every write is its own fsync'd transaction unless the caller wraps several in `db.transaction`.
 */
import type { SqliteDatabase } from './database.js';

/** The keys of the kv table, in one place so one transaction can touch several subsystems' settings. */
export const KV_KEYS = {
  identity: 'unit.identity',
  userDataValue: 'user_data.value',
  userDataPolicy: 'user_data.policy',
  ipv4Override: 'network.ipv4_override',
  speedOverride: 'network.speed_override',
  ptpProfile: 'time.ptp_profile',
} as const;

export class KvStore {
  private readonly getStmt;
  private readonly setStmt;
  private readonly deleteStmt;

  constructor(readonly db: SqliteDatabase) {
    this.getStmt = db.prepare<[string], { value: string }>('SELECT value FROM kv WHERE key = ?');
    this.setStmt = db.prepare<[string, string]>(
      'INSERT INTO kv (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
    );
    this.deleteStmt = db.prepare<[string]>('DELETE FROM kv WHERE key = ?');
  }

  get<T>(key: string): T | undefined {
    const row = this.getStmt.get(key);
    return row === undefined ? undefined : (JSON.parse(row.value) as T);
  }

  set(key: string, value: unknown): void {
    this.setStmt.run(key, JSON.stringify(value));
  }

  delete(key: string): void {
    this.deleteStmt.run(key);
  }
}
