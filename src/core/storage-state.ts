/**
 * Whether the unit's storage takes writes, as its answers show it: an episode begins with the first
 * write the storage refuses (full, read-only, I/O error) and ends with the next write it stores. The
 * log gets one line when an episode begins and one when it ends, not one per request; /metrics reads
 * the state and the counts.
 */
import type { Logger } from 'pino';
import type { StorageCause } from '../model/index.js';

export const STORAGE_CAUSES: readonly StorageCause[] = ['full', 'read-only', 'io'];

export class StorageState {
  private episode: StorageCause | undefined;
  private readonly refusals: Record<StorageCause, number> = { full: 0, 'read-only': 0, io: 0 };

  constructor(private readonly log: Logger) {}

  /** The cause of the episode going on, or undefined when writes are stored. */
  get refusing(): StorageCause | undefined {
    return this.episode;
  }

  /** Writes refused since the unit started, by cause. */
  get refused(): Readonly<Record<StorageCause, number>> {
    return this.refusals;
  }

  /** A write was refused by the storage (`code`: what the disk or SQLite said). */
  refuse(cause: StorageCause, code: string): void {
    this.refusals[cause]++;
    if (this.episode === cause) return;
    this.episode = cause;
    this.log.error(
      { storage: cause, code },
      `storage refuses writes (${code}): they are answered ${cause === 'io' ? '503' : '507'} until it takes them again; reads are served`,
    );
  }

  /** A write was stored. */
  stored(): void {
    if (this.episode === undefined) return;
    this.log.info({ storage: this.episode }, 'storage takes writes again');
    this.episode = undefined;
  }
}
