/**
 * A damaged database the disk has no room to repair (src/store/store-recovery.ts): the unit runs on a
 * read-only view of what could be read, its writes refused as a full disk refuses them, and the repair is
 * tried again whenever the partition has room for it, without a restart. Once repaired, the unit's handle
 * moves to the repaired file (src/store/switchable-database.ts) and writes are taken again.
 */
import type Database from 'better-sqlite3';
import { dirname } from 'node:path';
import { freeBytes } from './free-space.js';
import { forgetCachedReads } from './kv-store.js';
import { storageGateOf } from './storage-gate.js';
import { type ReadableView, type RepairShortage, readableView, repairStore } from './store-recovery.js';
import { type SwitchableDatabase, switchableDatabase } from './switchable-database.js';

/** How often the partition's free space is looked at while a repair waits for room. */
const RETRY_INTERVAL_MS = 1_000;

/** The alert tables: the view holds what the unit logged while waiting, which the repaired file does not. */
const ALERT_TABLES = ['alert_state', 'alert_log', 'alert_active'] as const;

export interface WaitingRepair {
  /** Why the database cannot be used as it is. */
  reason: string;
  shortage: RepairShortage;
  /** What the view holds, and what is at its factory default until the repair. */
  recovered: string[];
  lost: string[];
  walUnread: boolean;
}

export interface PendingRepairEvents {
  /** The repair was tried again and the disk still stopped it (a line for the log). */
  stillWaiting(shortage: RepairShortage): void;
  /** The handle now works on the repaired file; its recovery report is in its kv. */
  repaired(): void;
  /** The repair failed for a reason that is not the disk's: it is not tried again. */
  failed(error: unknown): void;
}

export class PendingRepair {
  private timer: NodeJS.Timeout | undefined;
  private needed: number;

  private constructor(
    private readonly path: string,
    private readonly handle: SwitchableDatabase,
    private readonly open: (path: string) => Database.Database,
    readonly waiting: WaitingRepair,
  ) {
    this.needed = waiting.shortage.needed;
  }

  /** The view of the damaged database at `path`, behind a handle whose writes are held until the repair. */
  static view(
    path: string,
    reason: string,
    shortage: RepairShortage,
    open: (path: string) => Database.Database,
  ): PendingRepair {
    const view: ReadableView = readableView(path);
    const handle = switchableDatabase(view.db, path);
    storageGateOf(handle.db).hold(true);
    const { recovered, lost, walUnread } = view;
    return new PendingRepair(path, handle, open, { reason, shortage, recovered, lost, walUnread });
  }

  get db(): Database.Database {
    return this.handle.db;
  }

  /** Tries the repair whenever there is room for it, until it is done or `stop()`. */
  start(events: PendingRepairEvents): void {
    this.timer = setInterval(() => this.retry(events), RETRY_INTERVAL_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private retry(events: PendingRepairEvents): void {
    if (freeBytes(dirname(this.path)) < this.needed || this.handle.db.inTransaction) return;
    try {
      const outcome = repairStore(this.path);
      if (outcome.state === 'waiting') {
        this.needed = outcome.shortage.needed;
        events.stillWaiting(outcome.shortage);
        return;
      }
      const repaired = this.open(this.path);
      copyAlertTables(this.handle.db, repaired);
      this.stop();
      this.handle.switchTo(repaired);
      forgetCachedReads(this.handle.db);
      storageGateOf(this.handle.db).hold(false);
      events.repaired();
    } catch (error) {
      this.stop();
      events.failed(error);
    }
  }
}

/** The alert log as the unit holds it now (in `from`) replaces what the repaired file read back of it. */
function copyAlertTables(from: Database.Database, to: Database.Database): void {
  to.transaction(() => {
    for (const table of ALERT_TABLES) {
      to.prepare(`DELETE FROM ${table}`).run();
      const rows = from.prepare(`SELECT * FROM ${table}`).all() as Record<string, unknown>[];
      if (rows.length === 0) continue;
      const columns = Object.keys(rows[0] as object);
      const insert = to.prepare(
        `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
      );
      for (const row of rows) insert.run(...columns.map((c) => row[c]));
    }
  })();
}
