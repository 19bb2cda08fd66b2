/** The room left on the partition of a folder, as the store and its callers judge a full disk. */
import { statfsSync } from 'node:fs';
import { storageCauseOf } from '../model/index.js';

/** Bytes an unprivileged process may still write on `dir`'s partition; 0 when that cannot be read. */
export function freeBytes(dir: string): number {
  try {
    const { bavail, bsize } = statfsSync(dir);
    return bavail * bsize;
  } catch {
    return 0;
  }
}

/**
 * Whether the partition has no useful room left: SQLite then fails even to open a database (its shared-memory
 * file cannot grow) and says "disk I/O error", which is the full disk, not damage.
 */
export function diskIsFull(dir: string): boolean {
  return freeBytes(dir) < 64 * 1024;
}

/**
 * Whether `error`, met reading a database in `dir`, is the disk refusing (full, read-only, or the I/O error
 * SQLite gives when it cannot even create its shared-memory file on a full disk), not what the file holds.
 */
export function diskRefused(error: unknown, dir: string): boolean {
  const cause = storageCauseOf(error);
  return cause === 'full' || cause === 'read-only' || (cause === 'io' && diskIsFull(dir));
}
