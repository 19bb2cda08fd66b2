/**
 * The rows of the unit's tables as the start-up check and the recovery read them: every row, one at
 * a time, kept only when it is what its table says (declared types, NOT NULL, JSON columns that parse).
 * SQLite checks a page's structure, not what a cell holds: an overwrite inside a value passes
 * `integrity_check`, so the rows themselves are checked too.
 */
import type Database from 'better-sqlite3';
import { KV_KEYS } from './kv-keys.js';

/** The tables a rebuilt store takes rows from; schema_migrations is the new store's own. */
export const DATA_TABLES = [
  'persisted_config',
  'kv',
  'alert_state',
  'alert_log',
  'alert_active',
  'firmware_slot',
  'firmware_state',
] as const;
type DataTable = (typeof DATA_TABLES)[number];

/** Columns that hold JSON text. */
const JSON_COLUMNS: Record<DataTable, readonly string[]> = {
  persisted_config: ['config'],
  kv: ['value'],
  alert_state: [],
  alert_log: ['entry'],
  alert_active: ['entry'],
  firmware_slot: ['manifest'],
  firmware_state: [],
};

/** What a user calls what a table (or a kv key) holds, for "what was lost". */
const KV_ITEMS: Record<string, string> = {
  [KV_KEYS.userDataValue]: 'the user data',
  [KV_KEYS.userDataPolicy]: 'the user data',
  [KV_KEYS.ipv4Override]: 'the static IPv4 override',
  [KV_KEYS.speedOverride]: 'the link speed override',
  [KV_KEYS.ptpProfile]: 'the PTP profile',
  [KV_KEYS.zoneStaged]: 'the staged zone set',
  [KV_KEYS.zoneActive]: 'the active zone set',
  [KV_KEYS.zoneLiveIds]: 'the live zone ids',
  [KV_KEYS.legacyIdentity]: 'the identity record of an earlier version',
};
const TABLE_ITEMS: Record<DataTable, string> = {
  persisted_config: 'the configuration',
  kv: 'the settings (user data, network overrides, PTP profile, zone sets)',
  alert_state: 'the alert log',
  alert_log: 'the alert log',
  alert_active: 'the alert log',
  firmware_slot: 'the firmware slot records',
  firmware_state: 'the firmware slot records',
};

export function itemOf(table: DataTable, row?: Record<string, unknown>): string {
  if (table === 'kv' && typeof row?.key === 'string') return KV_ITEMS[row.key] ?? `the setting ${row.key}`;
  return TABLE_ITEMS[table];
}

export interface Column {
  name: string;
  type: 'INTEGER' | 'TEXT';
  notNull: boolean;
}

/** The columns of `table` in `db` (STRICT tables: every column is INTEGER or TEXT). */
export function columnsOf(db: Database.Database, table: DataTable): Column[] {
  return (
    db.prepare(`PRAGMA table_info(${table})`).all() as { name: string; type: string; notnull: number; pk: number }[]
  ).map((c) => ({
    name: c.name,
    type: c.type.toUpperCase() as Column['type'],
    notNull: c.notnull === 1 || c.pk === 1,
  }));
}

/** Why `row` is not a valid row of `table`, or undefined. */
export function rowProblem(
  table: DataTable,
  columns: readonly Column[],
  row: Record<string, unknown>,
): string | undefined {
  for (const column of columns) {
    const value = row[column.name];
    if (value === null || value === undefined) {
      if (column.notNull) return `${column.name} is missing`;
      continue;
    }
    const typed =
      column.type === 'INTEGER'
        ? (typeof value === 'number' && Number.isInteger(value)) || typeof value === 'bigint'
        : typeof value === 'string';
    if (!typed) return `${column.name} is not ${column.type}`;
    if (JSON_COLUMNS[table].includes(column.name)) {
      try {
        JSON.parse(value as string);
      } catch {
        return `${column.name} is not JSON`;
      }
    }
  }
  return undefined;
}

export interface ReadRows {
  rows: Record<string, unknown>[];
  /** Rows SQLite could not read (a damaged page) or that are not valid rows: "what was lost". */
  lost: string[];
}

/** Rows past a damaged page are probed one rowid at a time, this far past the last readable one at most. */
const PROBE_SPAN = 4096;

/**
 * Every readable, valid row of `table` in `db` (a table scan, never an index: a damaged index must
 * not hide rows). Where SQLite stops at a damaged page, the rows after it are probed by rowid.
 */
export function readRows(db: Database.Database, table: DataTable, columns: readonly Column[]): ReadRows {
  const names = columns.map((c) => c.name).join(', ');
  const rows: Record<string, unknown>[] = [];
  const lost = new Set<string>();
  const keep = (row: Record<string, unknown>) => {
    const { rowid_: _rowid, ...values } = row;
    if (rowProblem(table, columns, values) === undefined) rows.push(values);
    else lost.add(itemOf(table, values));
  };
  let last = 0;
  try {
    const scan = db.prepare(`SELECT rowid AS rowid_, ${names} FROM ${table} NOT INDEXED ORDER BY rowid`);
    for (const row of scan.iterate() as Iterable<Record<string, unknown>>) {
      last = Number(row.rowid_);
      keep(row);
    }
    return { rows, lost: [...lost] };
  } catch {
    lost.add(itemOf(table));
  }
  let end = last + PROBE_SPAN;
  try {
    const max = (db.prepare(`SELECT max(rowid) AS m FROM ${table}`).get() as { m: number | null }).m;
    if (max !== null) end = Math.min(max, end);
  } catch {
    // The table's last page is unreadable too: probe the whole span.
  }
  let one: Database.Statement;
  try {
    one = db.prepare(`SELECT rowid AS rowid_, ${names} FROM ${table} NOT INDEXED WHERE rowid = ?`);
  } catch {
    // The schema itself is unreadable, or lacks the table: nothing of it can be read.
    return { rows, lost: [...lost] };
  }
  for (let rowid = last + 1; rowid <= end; rowid++) {
    try {
      const row = one.get(rowid) as Record<string, unknown> | undefined;
      if (row) keep(row);
    } catch {
      // This row's page is damaged: the row is lost.
    }
  }
  return { rows, lost: [...lost] };
}

/** What is wrong with the rows of `db`, or undefined when every row of every table is valid. */
export function rowDamage(db: Database.Database): string | undefined {
  for (const table of DATA_TABLES) {
    const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table);
    if (!exists) continue;
    const columns = columnsOf(db, table);
    const scan = db.prepare(`SELECT ${columns.map((c) => c.name).join(', ')} FROM ${table} NOT INDEXED`);
    for (const row of scan.iterate() as Iterable<Record<string, unknown>>) {
      const problem = rowProblem(table, columns, row);
      if (problem) return `a row of ${table} is damaged (${problem})`;
    }
  }
  return undefined;
}
