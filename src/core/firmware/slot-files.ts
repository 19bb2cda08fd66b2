/**
 * The slot image files in the firmware directory (`<data-dir>/firmware/slot-a.img`, `slot-b.img`)
 * and the durable-write primitives they need: a file is complete only once it was written to a
 * temporary name, fsync'd, renamed into place and its directory fsync'd.
 */
import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { type ImageHeader, ImageVerifier, type SlotImage, type SlotName } from '../../model/index.js';

export const TEMP_SUFFIX = '.tmp';

export function slotFileName(slot: SlotName): string {
  return `slot-${slot}.img`;
}

export function slotPath(dir: string, slot: SlotName): string {
  return join(dir, slotFileName(slot));
}

export function tempSlotPath(dir: string, slot: SlotName): string {
  return slotPath(dir, slot) + TEMP_SUFFIX;
}

/** Makes a rename or unlink in `dir` durable. */
export async function fsyncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export async function ensureSlotDirectory(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
}

/** Temporary files of uploads a power loss interrupted: never part of any slot, so they go. */
export async function removeStaleTemporaries(dir: string): Promise<string[]> {
  const names = (await readdir(dir)).filter((name) => name.endsWith(TEMP_SUFFIX));
  for (const name of names) await unlink(join(dir, name)).catch(() => undefined);
  if (names.length) await fsyncDirectory(dir);
  return names;
}

/** Writes `bytes` as the file `path` atomically and durably (temp, fsync, rename, directory fsync). */
export async function writeFileDurably(dir: string, path: string, bytes: Buffer): Promise<void> {
  const temp = path + TEMP_SUFFIX;
  const handle = await open(temp, 'w', 0o644);
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temp, path);
  await fsyncDirectory(dir);
}

/**
 * Reads a slot file end to end through the verifier: resolves with its header when it is a
 * complete, intact image matching `expected`; rejects otherwise (missing, truncated, corrupt,
 * or a different image than the slot state records).
 */
export async function verifySlotFile(path: string, expected: SlotImage): Promise<ImageHeader> {
  const verifier = new ImageVerifier();
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) verifier.push(chunk as Buffer);
  const header = verifier.finish();
  if (
    header.imageRev !== expected.imageRev ||
    header.payloadSha256 !== expected.payloadSha256 ||
    verifier.bytesSeen !== expected.imageLength
  ) {
    throw new Error(`${path} holds ${header.imageRev}, not the recorded ${expected.imageRev}`);
  }
  return header;
}

/** The slot record of a verified image. */
export function slotImageOf(header: ImageHeader): SlotImage {
  return {
    imageRev: header.imageRev,
    payloadSha256: header.payloadSha256,
    imageLength: header.payloadOffset + header.payloadLength,
    manifest: header.manifest,
  };
}
