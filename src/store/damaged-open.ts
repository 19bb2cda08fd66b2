/**
 * Opening a database a repair reads (store-recovery.ts): as it is, or, when SQLite refuses its header, with
 * the header put back to what every database of the unit has, so that the repair reads what it still holds.
 */
import Database from 'better-sqlite3';
import { closeSync, copyFileSync, existsSync, openSync, readFileSync, readSync, statSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { diskRefused } from './free-space.js';

/** Puts back the header fields every database of the unit has, in the file. */
function repairHeader(file: string): void {
  const fd = openSync(file, 'r+');
  try {
    const header = Buffer.alloc(100);
    readSync(fd, header, 0, 100, 0);
    repairHeaderBytes(header);
    writeSync(fd, header, 0, 100, 0);
  } finally {
    closeSync(fd);
  }
}

/** Puts back the header fields every database of the unit has (format string, page size, versions, payload fractions). */
function repairHeaderBytes(header: Buffer): void {
  header.write('SQLite format 3\0', 0, 'latin1');
  const pageSize = header.readUInt16BE(16);
  const valid = pageSize === 1 || (pageSize >= 512 && (pageSize & (pageSize - 1)) === 0);
  if (!valid) header.writeUInt16BE(4096, 16);
  if (header[18] !== 1 && header[18] !== 2) header[18] = 2;
  if (header[19] !== 1 && header[19] !== 2) header[19] = 2;
  header[21] = 64;
  header[22] = 32;
  header[23] = 32;
}

/** Whether SQLite reads the database at `path` as it is, or there is nothing to read (else its header needs repairing first). */
export function opensAsIs(path: string): boolean {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat?.isFile() || stat.size === 0) return true;
  const db = openReadable(path);
  db?.close();
  return db !== undefined;
}

/**
 * The database `file` (a path or the bytes of one), read-only, when SQLite can read its schema; undefined
 * when SQLite refuses it as damaged. A failure of the disk is thrown: it says nothing about the file.
 */
function openReadable(file: string | Buffer): Database.Database | undefined {
  let db: Database.Database | undefined;
  try {
    db = typeof file === 'string' ? new Database(file, { readonly: true, fileMustExist: true }) : new Database(file);
    db.prepare('SELECT count(*) FROM sqlite_master').get();
    return db;
  } catch (error) {
    db?.close();
    const sqlite = String((error as { code?: unknown }).code).startsWith('SQLITE_');
    if (!sqlite || (typeof file === 'string' && diskRefused(error, dirname(file)))) throw error;
    return undefined;
  }
}

/**
 * The damaged database, read-only; when SQLite refuses its header, a copy with the header fields put back:
 * at `copy` with its WAL, or (no `copy`: nothing may be written) in memory, without the WAL.
 */
export function openDamaged(path: string, copy: string | undefined): Database.Database | undefined {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat?.isFile() || stat.size === 0) return undefined;
  const asIs = openReadable(path);
  if (asIs) return asIs;
  if (!copy) {
    const bytes = readFileSync(path);
    repairHeaderBytes(bytes);
    // An in-memory database has no WAL: its header says so (rollback journal), or SQLite refuses it.
    bytes[18] = 1;
    bytes[19] = 1;
    return openReadable(bytes);
  }
  copyFileSync(path, copy);
  if (existsSync(`${path}-wal`)) copyFileSync(`${path}-wal`, `${copy}-wal`);
  repairHeader(copy);
  return openReadable(copy);
}
