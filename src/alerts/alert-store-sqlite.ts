/**
 * The alert log's persistence in the unit's SQLite database (tables of migration 002-alerts).
 * Each logged event is one transaction: append the entry, drop the one pushed out of the FIFO,
 * update the active set and next_cursor. With synchronous=FULL the cursor never goes backwards
 * across a power cycle.
 */
import { type SqliteDatabase, storageGateOf } from '../store/index.js';
import type { AlertEntry } from './alert-entry.js';
import type { AlertLogChange, AlertLogStore, PersistedAlertState } from './alert-log-store.js';

export class SqliteAlertLogStore implements AlertLogStore {
  private readonly recordTx: (change: AlertLogChange) => void;

  constructor(private readonly db: SqliteDatabase) {
    const upsertState = db.prepare<[number, number]>(
      `INSERT INTO alert_state (id, next_cursor, overflowed) VALUES (1, ?, ?)
       ON CONFLICT(id) DO UPDATE SET next_cursor = excluded.next_cursor, overflowed = excluded.overflowed`,
    );
    const dropLog = db.prepare<[number]>('DELETE FROM alert_log WHERE cursor = ?');
    const appendLog = db.prepare<[number, string]>('INSERT INTO alert_log (cursor, entry) VALUES (?, ?)');
    const addActive = db.prepare<[string, number, string]>(
      'INSERT OR REPLACE INTO alert_active (id, cursor, entry) VALUES (?, ?, ?)',
    );
    const removeActive = db.prepare<[string]>('DELETE FROM alert_active WHERE id = ?');
    const gate = storageGateOf(db);
    this.recordTx = db.transaction((change: AlertLogChange) => {
      gate.check('record');
      const json = JSON.stringify(change.entry);
      if (change.droppedCursor !== undefined) dropLog.run(change.droppedCursor);
      appendLog.run(change.entry.cursor, json);
      if (change.entry.active) addActive.run(change.entry.id, change.entry.cursor, json);
      else removeActive.run(change.entry.id);
      upsertState.run(change.nextCursor, change.overflowed ? 1 : 0);
    });
  }

  load(): PersistedAlertState | undefined {
    const state = this.db
      .prepare<[], { next_cursor: number; overflowed: number }>(
        'SELECT next_cursor, overflowed FROM alert_state WHERE id = 1',
      )
      .get();
    if (!state) return undefined;
    const parse = (rows: { entry: string }[]) => rows.map((row) => JSON.parse(row.entry) as AlertEntry);
    return {
      nextCursor: state.next_cursor,
      overflowed: state.overflowed === 1,
      log: parse(this.db.prepare<[], { entry: string }>('SELECT entry FROM alert_log ORDER BY seq').all()),
      active: parse(this.db.prepare<[], { entry: string }>('SELECT entry FROM alert_active ORDER BY rowid').all()),
    };
  }

  record(change: AlertLogChange): void {
    this.recordTx(change);
  }
}
