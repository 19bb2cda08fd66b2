/**
 * Rebuilding a damaged database at start, so that the unit starts whatever it finds in `sensor.db`.
 *
 * better-sqlite3 does not ship SQLite's recovery extension, so the rebuild reads the damaged file
 * through SQLite itself, read-only: each table of the unit's schema by a table scan, row by row; where
 * a damaged page stops the scan, the rows after it are probed one rowid at a time. A row is kept
 * only when it is what its table says (types, NOT NULL, JSON that parses, the new table's CHECKs).
 * The alert tables and the firmware tables are each kept whole or not at all, since their rows only
 * make sense together. A file whose header SQLite refuses is copied, its header fields put back to
 * what the unit writes, and read the same way. What cannot be read is at its factory default.
 *
 * The steps survive a power cut at any point (each is named for the power-loss harness):
 *   1. the new database is built as `sensor.db.rebuilding`: schema, readable rows, and the report of
 *      what was recovered and lost (kv `store.recovery`, read by the unit to raise CONFIG_INVALID);
 *   2. once complete and durable it is renamed `sensor.db.rebuilt`;
 *   3. the damaged `sensor.db` (and its WAL) is renamed aside, `sensor.db.damaged-<UTC time>`;
 *   4. `sensor.db.rebuilt` is renamed `sensor.db`.
 * A start that finds `sensor.db.rebuilding` throws it away (and rebuilds again from the damaged file,
 * still in place); one that finds `sensor.db.rebuilt` completes steps 3 and 4. Every path that puts a
 * damaged file aside keeps only the newest DAMAGED_KEPT sets (damaged-files.ts).
 *
 * Nothing is written before there is room for it (the copy, the rebuilt file and its WAL: `roomToRebuild`),
 * and a repair the disk stops (full, read-only, I/O error) is not damage: the half-built files go, the
 * damaged file stays where it is, and the caller runs read-only on what could be read
 * (`readableView`, src/store/pending-repair.ts) until there is room to repair it.
 */
import Database from 'better-sqlite3';
import { closeSync, existsSync, fsyncSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { storageCauseOf, utcIsoString } from '../model/index.js';
import { crashPoint } from './crash-point.js';
import { DAMAGED_INFIX, pruneDamaged } from './damaged-files.js';
import { openDamaged, opensAsIs } from './damaged-open.js';
import { diskRefused, freeBytes } from './free-space.js';
import { KV_KEYS } from './kv-keys.js';
import { applyMigrations } from './migrate.js';
import { columnsOf, DATA_TABLES, itemOf, readRows } from './store-rows.js';
import { findDamage } from './store-check.js';

export interface RecoveryReport {
  /** Why the database could not be used. */
  reason: string;
  /** The name the damaged file was kept under, in the data directory. */
  keptAs: string;
  recovered: string[];
  /** What is at its factory default because it could not be read. */
  lost: string[];
}

/** Tables kept whole or not at all. */
const GROUPS: readonly (readonly string[])[] = [
  ['alert_state', 'alert_log', 'alert_active'],
  ['firmware_slot', 'firmware_state'],
];

const EVERYTHING = 'everything stored (the configuration, user data, settings, alert log and firmware slot records)';

/** Room the partition keeps beyond the repair's own files, so the unit can still open and write the result. */
const REPAIR_RESERVE_BYTES = 512 * 1024;

/** Why a damaged database could not be repaired now: the disk has no room for it, or refused a write of it. */
export interface RepairShortage {
  /** Bytes the repair needs free (the copy, the rebuilt file and its WAL, and a reserve). */
  needed: number;
  /** Bytes free when it was tried. */
  free: number;
  /** What the disk or SQLite said when a repair that seemed to fit failed (ENOSPC, SQLITE_FULL, EIO...). */
  code?: string;
}

export type RepairOutcome =
  | { state: 'sound' }
  /** Rebuilt now; its report is in the new database's kv (KV_KEYS.recoveryReport). */
  | { state: 'rebuilt' }
  /** Damaged (`reason`) and left as it is: nothing was written. */
  | { state: 'waiting'; reason: string; shortage: RepairShortage };

/**
 * Run before the database at `path` is opened: completes a rebuild a power cut interrupted, then
 * rebuilds the database when it cannot be used and there is room to.
 */
export function repairStore(path: string): RepairOutcome {
  removeHalfBuilt(path);
  if (existsSync(`${path}.rebuilt`)) {
    swapIn(path);
    pruneDamaged(dirname(path), basename(path));
  }
  const reason = findDamage(path);
  if (reason === undefined) return { state: 'sound' };
  return rebuild(path, reason);
}

/** What a rebuild leaves when it did not finish: never part of a database. */
function removeHalfBuilt(path: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) {
    rmSync(`${path}.rebuilding${suffix}`, { force: true, recursive: true });
    rmSync(`${path}.salvage${suffix}`, { force: true });
  }
}

/** The source's bytes (the database and its WAL). */
function sourceBytes(path: string): number {
  return fileSize(path) + fileSize(`${path}-wal`);
}

/**
 * Bytes the rebuild of `path` may write: a copy of the source when its header needs repairing, the
 * rebuilt file (no bigger than the source: it holds what could be read of it) and its WAL (one
 * transaction holding every page), and the reserve.
 */
function roomToRebuild(path: string): number {
  const source = sourceBytes(path);
  return (opensAsIs(path) ? 0 : source) + 2 * source + REPAIR_RESERVE_BYTES;
}

function rebuild(path: string, reason: string): RepairOutcome {
  const dir = dirname(path);
  const needed = roomToRebuild(path);
  const free = freeBytes(dir);
  if (free < needed) return { state: 'waiting', reason, shortage: { needed, free } };
  const keptAs = `${basename(path)}${DAMAGED_INFIX}${utcIsoString(Date.now()).replace(/[-:]/g, '')}`;
  const building = `${path}.rebuilding`;
  try {
    const db = new Database(building);
    try {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
      applyMigrations(db);
      db.transaction(() => {
        const { recovered, lost } = salvageInto(db, path, `${path}.salvage`);
        crashPoint('recovery-salvaging');
        const report: RecoveryReport = { reason, keptAs, recovered: recovered.filter((r) => !lost.includes(r)), lost };
        db.prepare('INSERT INTO kv (key, value) VALUES (?, ?)').run(KV_KEYS.recoveryReport, JSON.stringify(report));
      })();
    } finally {
      db.close();
    }
    fsyncPath(building);
  } catch (error) {
    // The disk stopped the repair, not the file: nothing of it stays, the damaged file stays where it is.
    const code = (error as { code?: unknown }).code;
    if (storageCauseOf(error) === undefined || typeof code !== 'string') throw error;
    removeHalfBuilt(path);
    return { state: 'waiting', reason, shortage: { needed, free: freeBytes(dir), code } };
  }
  renameSync(building, `${path}.rebuilt`);
  fsyncPath(dir);
  crashPoint('recovery-before-swap');
  swapIn(path);
  pruneDamaged(dir, basename(path));
  return { state: 'rebuilt' };
}

/** What a read-only view of a damaged database holds (`readableView`). */
export interface ReadableView {
  db: Database.Database;
  recovered: string[];
  lost: string[];
  /** The header had to be repaired in memory, where a WAL cannot be read: what it holds is read at the repair. */
  walUnread: boolean;
}

/**
 * Everything that can be read of the damaged database at `path`, in an in-memory database of the unit's
 * schema, without writing a byte to the disk: what a unit serves, read-only, until there is room to repair it.
 */
export function readableView(path: string): ReadableView {
  const db = new Database(':memory:');
  applyMigrations(db);
  const salvaged = db.transaction(() => salvageInto(db, path, undefined))();
  const walUnread = !opensAsIs(path) && fileSize(`${path}-wal`) > 0;
  return { db, ...salvaged, recovered: salvaged.recovered.filter((r) => !salvaged.lost.includes(r)), walUnread };
}

/** Steps 3 and 4: the damaged database aside (under the name the report gives), the rebuilt one in its place. */
function swapIn(path: string): void {
  const rebuilt = `${path}.rebuilt`;
  const report = readReport(rebuilt);
  // Reading the report opened it: what that left beside it is empty and not part of it.
  for (const suffix of ['-wal', '-shm']) rmSync(`${rebuilt}${suffix}`, { force: true });
  if (!report) {
    // Step 2 renames only a complete file, so this is not one of ours: not trusted.
    rmSync(rebuilt, { force: true });
    return;
  }
  const aside = join(dirname(path), report.keptAs);
  // The WAL first: a WAL left behind under the live name would be replayed into the new database.
  if (existsSync(`${path}-wal`)) renameSync(`${path}-wal`, `${aside}-wal`);
  rmSync(`${path}-shm`, { force: true });
  if (existsSync(path)) renameSync(path, aside);
  fsyncPath(dirname(path));
  crashPoint('recovery-mid-swap');
  renameSync(rebuilt, path);
  fsyncPath(dirname(path));
}

function readReport(file: string): RecoveryReport | undefined {
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      const row = db.prepare('SELECT value FROM kv WHERE key = ?').get(KV_KEYS.recoveryReport) as
        | { value: string }
        | undefined;
      return row ? (JSON.parse(row.value) as RecoveryReport) : undefined;
    } finally {
      db.close();
    }
  } catch (error) {
    // A file SQLite refuses is not one of ours; the disk refusing to open it is no verdict on it.
    if (diskRefused(error, dirname(file))) throw error;
    return undefined;
  }
}

/**
 * Copies every readable, valid row of the damaged database at `path` into `db` (in its transaction).
 * A header SQLite refuses is repaired in a copy at `copy` (with the WAL), or in memory without one.
 */
function salvageInto(
  db: Database.Database,
  path: string,
  copy: string | undefined,
): { recovered: string[]; lost: string[] } {
  const source = openDamaged(path, copy);
  if (!source) return { recovered: [], lost: [EVERYTHING] };
  const recovered = new Set<string>();
  const lost = new Set<string>();
  try {
    const taken = new Map<string, Record<string, unknown>[]>();
    for (const table of DATA_TABLES) {
      const columns = columnsOf(db, table);
      const read = readRows(source, table, columns);
      for (const item of read.lost) lost.add(item);
      const insert = db.prepare(
        `INSERT OR IGNORE INTO ${table} (${columns.map((c) => c.name).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
      );
      const kept: Record<string, unknown>[] = [];
      for (const row of read.rows) {
        try {
          insert.run(...columns.map((c) => row[c.name]));
          kept.push(row);
        } catch (error) {
          // Refused by the table's CHECKs: a value the unit never writes. Anything else stops the repair.
          if (!String((error as { code?: unknown }).code).startsWith('SQLITE_CONSTRAINT')) throw error;
          lost.add(itemOf(table, row));
        }
      }
      taken.set(table, kept);
      if (read.lost.length > 0) taken.set(`${table}:lost`, []);
    }
    for (const group of GROUPS) {
      if (!group.some((table) => taken.has(`${table}:lost`))) continue;
      for (const table of group) db.prepare(`DELETE FROM ${table}`).run();
      for (const table of group) taken.set(table, []);
      lost.add(itemOf(group[0] as (typeof DATA_TABLES)[number]));
    }
    for (const table of DATA_TABLES) for (const row of taken.get(table) ?? []) recovered.add(itemOf(table, row));
  } finally {
    source.close();
    if (copy) for (const suffix of ['', '-wal', '-shm']) rmSync(`${copy}${suffix}`, { force: true });
  }
  recovered.delete(itemOf('kv', { key: KV_KEYS.recoveryReport }));
  return { recovered: [...recovered], lost: [...lost] };
}

function fileSize(path: string): number {
  return statSync(path, { throwIfNoEntry: false })?.size ?? 0;
}

function fsyncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
