/**
 * One process per data directory: two servers on one directory would serve the same serial and
 * interleave their writes. The lock is an OS-level one (SQLite's POSIX lock on `sensor.lock`, held
 * by an open exclusive transaction), so the kernel releases it when the holder dies, even by
 * SIGKILL or power loss: a stale lock never blocks a restart. `sensor.pid` names the holder.
 */
import Database from 'better-sqlite3';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const LOCK_FILE = 'sensor.lock';
export const PID_FILE = 'sensor.pid';

export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holderPid: number | undefined,
  ) {
    const holder = holderPid !== undefined ? `process ${holderPid}` : 'another process';
    super(
      `the data directory ${dataDir} is in use by ${holder} (another lidar-sensor); stop it, or give this one its own --data-dir`,
    );
  }
}

export interface DataDirLock {
  release(): void;
}

function readHolderPid(dataDir: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(dataDir, PID_FILE), 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Takes the lock or throws DataDirInUseError; other failures (not writable, …) are thrown as they are. */
export function lockDataDir(dataDir: string): DataDirLock {
  mkdirSync(dataDir, { recursive: true });
  const db = new Database(join(dataDir, LOCK_FILE), { timeout: 0 });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    db.close();
    if ((error as { code?: string }).code === 'SQLITE_BUSY')
      throw new DataDirInUseError(dataDir, readHolderPid(dataDir));
    throw error;
  }
  const pidPath = join(dataDir, PID_FILE);
  writeFileSync(`${pidPath}.tmp`, `${process.pid}\n`);
  renameSync(`${pidPath}.tmp`, pidPath);
  return {
    release() {
      if (!db.open) return;
      db.exec('ROLLBACK');
      db.close();
    },
  };
}
