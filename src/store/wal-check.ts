/**
 * Reads a write-ahead log the way SQLite does (https://www.sqlite.org/fileformat.html#the_write_ahead_log)
 * to find committed transactions SQLite would drop without a word. SQLite replays a WAL up to the
 * first frame whose checksum fails and ignores the rest: right for a write torn by a power cut, but a
 * frame damaged later (a failing flash, an overwrite) silently drops every transaction after it.
 *
 * Checksums are chained, so nothing after a bad frame can be verified. What tells the two apart is
 * the salt that stamps every frame of one WAL generation: a torn write only ever affects the last
 * transaction, so a complete commit frame of this generation after the bad one that is itself
 * followed by more frames of this generation means at least one transaction had been committed
 * in full after the damage. Damage inside the last transaction looks exactly like a torn write,
 * and is treated as one.
 */
import { readFileSync, statSync } from 'node:fs';

const HEADER_BYTES = 32;
const FRAME_HEADER_BYTES = 24;
const MAGIC_LITTLE_ENDIAN = 0x377f0682;
const MAGIC_BIG_ENDIAN = 0x377f0683;

export interface WalDamage {
  /** Frames SQLite will replay. */
  validFrames: number;
  /** What is wrong, for the recovery report. */
  reason: string;
}

type Checksum = [number, number];

function checksum(bytes: Buffer, start: number, end: number, bigEndian: boolean, seed: Checksum): Checksum {
  let [s0, s1] = seed;
  for (let at = start; at < end; at += 8) {
    const x0 = bigEndian ? bytes.readUInt32BE(at) : bytes.readUInt32LE(at);
    const x1 = bigEndian ? bytes.readUInt32BE(at + 4) : bytes.readUInt32LE(at + 4);
    s0 = (s0 + x0 + s1) >>> 0;
    s1 = (s1 + x1 + s0) >>> 0;
  }
  return [s0, s1];
}

function allZero(bytes: Buffer, from: number): boolean {
  for (let at = from; at < bytes.length; at++) if (bytes[at] !== 0) return false;
  return true;
}

/** Damage in the WAL `bytes` that loses committed transactions; undefined when there is none. */
export function walDamage(bytes: Buffer): WalDamage | undefined {
  if (bytes.length < HEADER_BYTES) return undefined;
  const magic = bytes.readUInt32BE(0);
  const pageSize = bytes.readUInt32BE(8);
  const validPageSize = pageSize >= 512 && pageSize <= 65536 && (pageSize & (pageSize - 1)) === 0;
  const bigEndian = magic === MAGIC_BIG_ENDIAN;
  const headerSum = checksum(bytes, 0, 24, bigEndian, [0, 0]);
  const headerOk =
    (magic === MAGIC_LITTLE_ENDIAN || bigEndian) &&
    validPageSize &&
    headerSum[0] === bytes.readUInt32BE(24) &&
    headerSum[1] === bytes.readUInt32BE(28);
  if (!headerOk) {
    // A WAL that was never written (or zeroed ahead of use) holds nothing to lose.
    return allZero(bytes, 0) ? undefined : { validFrames: 0, reason: 'the write-ahead log header is damaged' };
  }
  const salt1 = bytes.readUInt32BE(16);
  const salt2 = bytes.readUInt32BE(20);
  const frameBytes = FRAME_HEADER_BYTES + pageSize;
  const ours = (at: number) => bytes.readUInt32BE(at + 8) === salt1 && bytes.readUInt32BE(at + 12) === salt2;
  let sum = headerSum;
  let frame = 0;
  let at = HEADER_BYTES;
  for (; at + frameBytes <= bytes.length && ours(at); at += frameBytes, frame++) {
    const next = checksum(
      bytes,
      at + FRAME_HEADER_BYTES,
      at + frameBytes,
      bigEndian,
      checksum(bytes, at, at + 8, bigEndian, sum),
    );
    if (next[0] !== bytes.readUInt32BE(at + 16) || next[1] !== bytes.readUInt32BE(at + 20)) break;
    sum = next;
  }
  // `at` is the first frame SQLite will not replay. A commit of this generation past it, followed by
  // more of this generation, is a transaction that had been committed whole.
  let commitSeen = false;
  for (let later = at; later + frameBytes <= bytes.length; later += frameBytes) {
    if (!ours(later)) continue;
    if (commitSeen)
      return {
        validFrames: frame,
        reason: `frame ${frame + 1} of the write-ahead log is damaged; committed transactions after it were dropped`,
      };
    if (bytes.readUInt32BE(later + 4) !== 0) commitSeen = true;
  }
  return undefined;
}

/** `walDamage` of the file at `path`; undefined when there is no such file. */
export function walFileDamage(path: string): WalDamage | undefined {
  try {
    if (!statSync(path).isFile()) return undefined;
  } catch {
    return undefined;
  }
  return walDamage(readFileSync(path));
}
