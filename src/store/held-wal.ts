/**
 * The WAL flush of group commit (group-commit.ts): one descriptor of the WAL file held open, and the file
 * pre-sized so that a flush writes no new size and blocks.
 */
import { closeSync, fdatasync, fdatasyncSync, fstatSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { storageCauseOf } from '../model/index.js';
import type { FlushPolicy } from './flush-policy.js';
import { freeBytes } from './free-space.js';

/** Makes everything written to the WAL file so far durable (off the event loop). */
export type WalSync = (walPath: string) => Promise<void>;

/** The same, on the event loop: blocks until the WAL is durable. */
export interface InlineWalSync {
  sync: (walPath: string) => void;
  /** Decides, flush by flush, whether `sync` is used or the thread pool's. */
  policy: FlushPolicy;
}

/**
 * fdatasync through one descriptor of the WAL file, held open until `close`: a flush on the thread
 * pool is then one trip there instead of three (open, datasync, close), which on a virtual machine's
 * disk costs more CPU than the flush itself. SQLite keeps the WAL file (the same inode, reset or
 * truncated in place) for as long as the database is open; the descriptor is closed before it.
 */
export class HeldWal {
  private fd: number | undefined;

  /** `walBytes`: how large the WAL grows between two checkpoints (see `presize`). */
  constructor(private readonly walBytes: () => number) {}

  private opened(walPath: string): number {
    if (this.fd === undefined) {
      const fd = openSync(walPath, 'r+');
      try {
        presize(fd, Math.min(this.walBytes(), spareBytes(dirname(walPath))));
      } catch (error) {
        closeSync(fd);
        throw error;
      }
      this.fd = fd;
    }
    return this.fd;
  }

  /** Reopen on the next flush: the descriptor may be what failed. */
  private drop(fd: number): void {
    if (this.fd === fd) this.fd = undefined;
    try {
      closeSync(fd);
    } catch {
      // Already unusable: nothing more to release.
    }
  }

  readonly sync: WalSync = (walPath) =>
    new Promise((resolve, reject) => {
      const fd = this.opened(walPath);
      fdatasync(fd, (error) => {
        if (!error) return resolve();
        this.drop(fd);
        reject(error);
      });
    });

  readonly syncNow = (walPath: string): void => {
    const fd = this.opened(walPath);
    try {
      fdatasyncSync(fd);
    } catch (error) {
      this.drop(fd);
      throw error;
    }
  };

  close(): void {
    if (this.fd !== undefined) this.drop(this.fd);
  }
}

/**
 * Extends the WAL file with zeros to `bytes` (when shorter): an fdatasync of a file that grows must
 * also write its new size and blocks (the file system's metadata, a second write), which about doubles
 * what a flush costs, and a fresh WAL grows for its first thousand pages, after every start. SQLite
 * writes frames over the zeros in place; it reads a WAL only up to its last valid frame (salt and
 * checksum), so the zeros past it are never taken for frames, also in recovery after a crash, and it
 * reuses the file from its start after a checkpoint (it never truncates it: no journal_size_limit
 * here). Runs once, on the event loop, before the first flush, which then makes the zeros durable too.
 */
function presize(fd: number, bytes: number): void {
  const size = fstatSync(fd).size;
  if (size >= bytes) return;
  const zeros = Buffer.alloc(Math.min(bytes - size, 1 << 18));
  try {
    for (let at = size; at < bytes; ) at += writeSync(fd, zeros, 0, Math.min(zeros.length, bytes - at), at);
  } catch (error) {
    // Space ran out meanwhile (another process): what was zeroed is kept, the rest grows as SQLite writes.
    if (storageCauseOf(error) !== 'full') throw error;
  }
}

/**
 * How much of the partition's free space the WAL's pre-size may take: a quarter. On a small data
 * partition a full pre-size would leave nothing for the database, the firmware slots and the rest;
 * the WAL then grows as SQLite writes, as it would without it.
 */
function spareBytes(dir: string): number {
  return Math.floor(freeBytes(dir) / 4);
}
