/**
 * The damaged databases a repair keeps beside the new one (store-recovery.ts): how they are named, how many
 * are kept, and which there are (the diagnostics dump carries them).
 */
import { readdirSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

export const DAMAGED_INFIX = '.damaged-';
/** Sets of damaged files kept in the data directory (the newest; older ones are removed). */
export const DAMAGED_KEPT = 2;

/** Keeps the newest DAMAGED_KEPT sets of damaged files (a database and its WAL share a name). */
export function pruneDamaged(dir: string, name: string): void {
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
