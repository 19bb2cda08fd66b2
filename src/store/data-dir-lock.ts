/**
 * One process per data directory: two servers on one directory would serve the same serial and
 * interleave their writes. The lock is an OS-level one (SQLite's POSIX lock on `sensor.lock`, held
 * by an open exclusive transaction), so the kernel releases it when the holder dies, even by
 * SIGKILL or power loss: a stale lock never blocks a restart. `sensor.pid` names the holder.
 */
import Database from 'better-sqlite3';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
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
    // The lock file holds no data: its journal stays in memory, so taking the lock writes nothing and a unit
    // can start on a full disk (where it serves reads and can free its own space).
    db.pragma('journal_mode = MEMORY');
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    db.close();
    if ((error as { code?: string }).code === 'SQLITE_BUSY')
      throw new DataDirInUseError(dataDir, readHolderPid(dataDir));
    throw error;
  }
  notePid(join(dataDir, PID_FILE));
  return {
    release() {
      if (!db.open) return;
      db.exec('ROLLBACK');
      db.close();
    },
  };
}

/**
 * Names this process as the holder, for the message a second start gives. Only informative: on a full disk a
 * new file cannot be written, so the old one is overwritten in place (its blocks are already allocated), and
 * failing that the holder stays unnamed, rather than a unit that cannot start where it could serve reads and
 * free its own space (docs/architecture.md, Persistence).
 */
function notePid(pidPath: string): void {
  const text = `${process.pid}\n`;
  try {
    writeFileSync(`${pidPath}.tmp`, text);
    renameSync(`${pidPath}.tmp`, pidPath);
  } catch (error) {
    rmSync(`${pidPath}.tmp`, { force: true });
    if (!OUT_OF_SPACE.has((error as { code?: string }).code ?? '')) throw error;
    try {
      writeFileSync(pidPath, text.padEnd(readFileSync(pidPath, 'utf8').length, ' '), { flag: 'r+' });
    } catch {
      // No earlier pid file to overwrite: the holder stays unnamed.
    }
  }
}

const OUT_OF_SPACE = new Set(['ENOSPC', 'EDQUOT']);
