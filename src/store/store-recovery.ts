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
 * still in place); one that finds `sensor.db.rebuilt` completes steps 3 and 4.
 */
import Database from 'better-sqlite3';
import {
  closeSync,
  copyFileSync,
  existsSync,
  fsyncSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { utcIsoString } from '../model/index.js';
import { crashPoint } from './crash-point.js';
import { KV_KEYS } from './kv-keys.js';
import { applyMigrations } from './migrate.js';
import { columnsOf, DATA_TABLES, itemOf, readRows } from './store-rows.js';
import { findDamage } from './store-check.js';

export const DAMAGED_INFIX = '.damaged-';
/** Sets of damaged files kept in the data directory (the newest; older ones are removed). */
export const DAMAGED_KEPT = 2;

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

/**
 * Run before the database at `path` is opened: completes a rebuild a power cut interrupted, then
 * rebuilds the database when it cannot be used. Returns whether it rebuilt.
 */
export function repairStore(path: string): boolean {
  for (const suffix of ['', '-wal', '-shm', '-journal']) {
    rmSync(`${path}.rebuilding${suffix}`, { force: true, recursive: true });
    rmSync(`${path}.salvage${suffix}`, { force: true });
  }
  if (existsSync(`${path}.rebuilt`)) swapIn(path);
  const reason = findDamage(path);
  if (reason === undefined) return false;
  rebuild(path, reason);
  return true;
}

function rebuild(path: string, reason: string): void {
  const keptAs = `${basename(path)}${DAMAGED_INFIX}${utcIsoString(Date.now()).replace(/[-:]/g, '')}`;
  const building = `${path}.rebuilding`;
  const db = new Database(building);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    applyMigrations(db);
    db.transaction(() => {
      const { recovered, lost } = salvageInto(db, path);
      crashPoint('recovery-salvaging');
      const report: RecoveryReport = { reason, keptAs, recovered: recovered.filter((r) => !lost.includes(r)), lost };
      db.prepare('INSERT INTO kv (key, value) VALUES (?, ?)').run(KV_KEYS.recoveryReport, JSON.stringify(report));
    })();
  } finally {
    db.close();
  }
  fsyncPath(building);
  renameSync(building, `${path}.rebuilt`);
  fsyncPath(dirname(path));
  crashPoint('recovery-before-swap');
  swapIn(path);
  pruneDamaged(dirname(path), basename(path));
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
  } catch {
    return undefined;
  }
}

/** Copies every readable, valid row of the damaged database at `path` into `db` (in its transaction). */
function salvageInto(db: Database.Database, path: string): { recovered: string[]; lost: string[] } {
  const source = openDamaged(path);
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
        } catch {
          // Refused by the table's CHECKs: a value the unit never writes.
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
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}.salvage${suffix}`, { force: true });
  }
  recovered.delete(itemOf('kv', { key: KV_KEYS.recoveryReport }));
  return { recovered: [...recovered], lost: [...lost] };
}

/** The damaged database, read-only; a copy with its header fields put back when SQLite refuses the header. */
function openDamaged(path: string): Database.Database | undefined {
  try {
    if (!statSync(path).isFile() || statSync(path).size === 0) return undefined;
  } catch {
    return undefined;
  }
  const open = (file: string) => {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      db.prepare('SELECT count(*) FROM sqlite_master').get();
      return db;
    } catch (error) {
      db.close();
      throw error;
    }
  };
  try {
    return open(path);
  } catch {
    // Try again with the header repaired, below.
  }
  const copy = `${path}.salvage`;
  try {
    copyFileSync(path, copy);
    if (existsSync(`${path}-wal`)) copyFileSync(`${path}-wal`, `${copy}-wal`);
    repairHeader(copy);
    return open(copy);
  } catch {
    return undefined;
  }
}

/** Puts back the header fields every database of the unit has (format string, page size, versions, payload fractions). */
function repairHeader(file: string): void {
  const fd = openSync(file, 'r+');
  try {
    const header = Buffer.alloc(100);
    readSync(fd, header, 0, 100, 0);
    header.write('SQLite format 3\0', 0, 'latin1');
    const pageSize = header.readUInt16BE(16);
    const valid = pageSize === 1 || (pageSize >= 512 && (pageSize & (pageSize - 1)) === 0);
    if (!valid) header.writeUInt16BE(4096, 16);
    if (header[18] !== 1 && header[18] !== 2) header[18] = 2;
    if (header[19] !== 1 && header[19] !== 2) header[19] = 2;
    header[21] = 64;
    header[22] = 32;
    header[23] = 32;
    writeSync(fd, header, 0, 100, 0);
  } finally {
    closeSync(fd);
  }
}

function fsyncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Keeps the newest DAMAGED_KEPT sets of damaged files (a database and its WAL share a name). */
function pruneDamaged(dir: string, name: string): void {
  const prefix = `${name}${DAMAGED_INFIX}`;
  const stamps = [
    ...new Set(
      readdirSync(dir)
        .filter((f) => f.startsWith(prefix))
        .map((f) => f.slice(prefix.length).replace(/-wal$/, '')),
    ),
  ].sort();
  for (const stamp of stamps.slice(0, -DAMAGED_KEPT))
    for (const suffix of ['', '-wal'])
      rmSync(join(dir, `${prefix}${stamp}${suffix}`), { force: true, recursive: true });
}

/** The damaged files kept beside the database at `databasePath` that are files (the diagnostics dump carries them). */
export function keptDamagedFiles(databasePath: string): { name: string; path: string }[] {
  const dir = dirname(databasePath);
  return damagedFiles(dir, basename(databasePath))
    .map((name) => ({ name, path: join(dir, name) }))
    .filter(({ path }) => isFile(path));
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Names of the damaged files kept in `dir` (for the diagnostics dump). */
export function damagedFiles(dir: string, name: string): string[] {
  const prefix = `${name}${DAMAGED_INFIX}`;
  try {
    return readdirSync(dir)
      .filter((f) => f.startsWith(prefix))
      .sort();
  } catch {
    return [];
  }
}
