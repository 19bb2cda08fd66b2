/** What every measurement gets from the orchestrator. */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

export interface BenchContext {
  /** Fewer and shorter runs: the whole suite in under a minute. */
  quick: boolean;
  /** Progress lines (stderr), so stdout carries only the table. */
  log(message: string): void;
  /** A fresh data directory for one sensor, inside the run's temporary directory. */
  dataDir(name: string): string;
}

export function createContext(quick: boolean, tmpDir: string): BenchContext {
  let counter = 0;
  const startedAt = performance.now();
  return {
    quick,
    log: (message) =>
      process.stderr.write(`bench [${((performance.now() - startedAt) / 1000).toFixed(1).padStart(5)} s] ${message}\n`),
    dataDir(name) {
      const dir = join(tmpDir, `${name}-${++counter}`);
      mkdirSync(dir, { recursive: true });
      return dir;
    },
  };
}
