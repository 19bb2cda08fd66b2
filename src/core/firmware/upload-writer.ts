/**
 * Streams an uploaded firmware image into a slot file without holding it in memory:
 * body → verifier (header and signatures checked from the first bytes, SHA-256 while writing) →
 * `<slot>.img.tmp` → fsync → rename to `<slot>.img` → directory fsync. The temporary file is opened
 * only once the header has passed the firmware policy (trust store, minimum version), so a refused
 * image never reaches the disk. Anything short of a complete, verified image removes the temporary
 * file and leaves the slot file as it was.
 */
import { open, rename, statfs, unlink, type FileHandle } from 'node:fs/promises';
import { ApiError, badRequest, payloadTooLarge } from '../../model/index.js';
import { crashPoint } from '../../store/index.js';
import { ImageFormatError, ImageVerifier, type ImageHeader } from '../../model/index.js';
import { fsyncDirectory, slotPath, tempSlotPath } from './slot-files.js';
import type { SlotName } from '../../model/index.js';
import { FirmwarePolicy } from './firmware-trust.js';

export interface UploadTarget {
  dir: string;
  slot: SlotName;
  /** Largest image accepted, header included. */
  maxBytes: number;
  /** Which images may install; default: any intact image (no trust store, no minimum version). */
  policy?: FirmwarePolicy;
}

const ANY_IMAGE = new FirmwarePolicy();

export async function writeUploadToSlot(
  body: AsyncIterable<Buffer | string>,
  target: UploadTarget,
): Promise<ImageHeader> {
  const policy = target.policy ?? ANY_IMAGE;
  const temp = tempSlotPath(target.dir, target.slot);
  const verifier = new ImageVerifier(policy.checkSignatures);
  let handle: FileHandle | undefined;
  /** Bytes that arrived before the header was accepted (a few KB at most: header, signatures, a first chunk). */
  let held: Buffer[] = [];
  let closed = false;
  try {
    for await (const piece of body) {
      const chunk = typeof piece === 'string' ? Buffer.from(piece) : piece;
      verifier.push(chunk);
      const announced = verifier.expectedLength;
      if (announced !== undefined && announced > target.maxBytes) {
        throw payloadTooLarge(`the firmware image is ${announced} bytes; this unit accepts at most ${target.maxBytes}`);
      }
      if (verifier.bytesSeen > target.maxBytes) throw payloadTooLarge(`the upload exceeds ${target.maxBytes} bytes`);
      if (!handle) {
        held.push(chunk);
        if (!verifier.header) continue;
        policy.checkVersion(verifier.header);
        await checkRoomFor(verifier.expectedLength, target.dir);
        handle = await open(temp, 'w', 0o644);
        for (const early of held) await handle.write(early);
        held = [];
      } else {
        await handle.write(chunk);
      }
      crashPoint('upload-chunk');
    }
    const header = verifier.finish();
    // finish() passed, so the header arrived and the file is open; this only tells the type checker.
    handle ??= await open(temp, 'w', 0o644);
    crashPoint('upload-before-fsync');
    await handle.sync();
    await handle.close();
    closed = true;
    crashPoint('upload-before-rename');
    await rename(temp, slotPath(target.dir, target.slot));
    crashPoint('upload-before-dir-fsync');
    await fsyncDirectory(target.dir);
    return header;
  } catch (error) {
    if (handle) {
      if (!closed) await handle.close().catch(() => undefined);
      await unlink(temp).catch(() => undefined);
    }
    throw asUploadError(error, policy, verifier.statedImageRev);
  }
}

/** Refuses (507) an image the data partition has no room for, before a byte of it is written. */
async function checkRoomFor(bytes: number | undefined, dir: string): Promise<void> {
  if (bytes === undefined) return;
  const { bavail, bsize } = await statfs(dir);
  const free = bavail * bsize;
  if (bytes > free)
    throw new ApiError(
      'insufficient-storage',
      `the firmware image is ${bytes} bytes and the unit's storage has ${free} bytes free: nothing was written, the running image is untouched`,
    );
}

function asUploadError(error: unknown, policy: FirmwarePolicy, imageRev: string | undefined): unknown {
  if (error instanceof ApiError) return error;
  if (error instanceof ImageFormatError)
    return policy.refusalFor(error, imageRev) ?? badRequest(`${error.message}; nothing was installed`);
  // The client went away or the connection broke mid-body: the upload is incomplete.
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (
    code === 'ECONNRESET' ||
    code === 'ERR_STREAM_PREMATURE_CLOSE' ||
    (error as Error | undefined)?.message === 'aborted'
  ) {
    return badRequest('the upload ended before the whole image arrived; nothing was installed');
  }
  return error;
}
