/**
 * The check of the database before a start uses it: is `sensor.db` a file SQLite can open, is its
 * structure sound (`PRAGMA integrity_check`, which also finds indexes that disagree with their tables,
 * where `quick_check` does not), is every row what its table says, and does its write-ahead log drop
 * committed transactions? The database is opened read-only for this, so a damaged file is left
 * exactly as it was found (a read-write connection would checkpoint its log on close).
 */
import Database from 'better-sqlite3';
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { rowDamage } from './store-rows.js';
import { diskRefused } from './free-space.js';
import { walFileDamage } from './wal-check.js';

const SQLITE_MAGIC = 'SQLite format 3\0';

/** Why the database at `path` cannot be used as it is, or undefined when it can (or does not exist yet). */
export function findDamage(path: string): string | undefined {
  let size: number;
  try {
    const stat = statSync(path);
    if (stat.isDirectory()) return 'it is a directory, not a database file';
    if (!stat.isFile()) return 'it is not a regular file';
    size = stat.size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  if (size === 0) return 'it is empty (0 bytes)';
  if (readHead(path, SQLITE_MAGIC.length) !== SQLITE_MAGIC) return 'its header is damaged (not an SQLite database)';
  const wal = walFileDamage(`${path}-wal`);
  if (wal) return wal.reason;
  let db: Database.Database | undefined;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
    const pages = db.pragma('page_count', { simple: true }) as number;
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    if (pages * pageSize > size && !existsNonEmpty(`${path}-wal`))
      return `it is truncated (${size} bytes; its header says ${pages * pageSize})`;
    const integrity = db.pragma('integrity_check(4)', { simple: false }) as { integrity_check: string }[];
    const problems = integrity.map((r) => r.integrity_check).filter((line) => line !== 'ok');
    if (problems.length) return `its integrity check fails (${problems.join('; ')})`;
    return rowDamage(db);
  } catch (error) {
    // A full or read-only disk stops the check, not the file: the database opens as it is, and its writes get
    // their 507 answers; rebuilding it there would only fail in turn.
    if (diskRefused(error, dirname(path))) return undefined;
    return `it cannot be read (${(error as Error).message})`;
  } finally {
    db?.close();
  }
}

function readHead(path: string, bytes: number): string {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(bytes);
    const read = readSync(fd, buffer, 0, bytes, 0);
    return buffer.toString('latin1', 0, read);
  } finally {
    closeSync(fd);
  }
}

function existsNonEmpty(path: string): boolean {
  try {
    return statSync(path).size > 0;
  } catch {
    return false;
  }
}
