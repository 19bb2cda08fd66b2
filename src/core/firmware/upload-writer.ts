/**
 * Streams an uploaded firmware image into a slot file without holding it in memory:
 * body → verifier (header checked from the first bytes, SHA-256 while writing) → `<slot>.img.tmp`
 * → fsync → rename to `<slot>.img` → directory fsync. Anything short of a complete, verified image
 * removes the temporary file and leaves the slot file as it was.
 */
import { open, rename, unlink } from 'node:fs/promises';
import {
  ApiError,
  badRequest,
  ImageFormatError,
  type ImageHeader,
  ImageVerifier,
  payloadTooLarge,
  type SlotName,
} from '../../model/index.js';
import { crashPoint } from './crash-point.js';
import { fsyncDirectory, slotPath, tempSlotPath } from './slot-files.js';

export interface UploadTarget {
  dir: string;
  slot: SlotName;
  /** Largest image accepted, header included. */
  maxBytes: number;
}

export async function writeUploadToSlot(
  body: AsyncIterable<Buffer | string>,
  target: UploadTarget,
): Promise<ImageHeader> {
  const temp = tempSlotPath(target.dir, target.slot);
  const verifier = new ImageVerifier();
  const handle = await open(temp, 'w', 0o644);
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
      await handle.write(chunk);
      crashPoint('upload-chunk');
    }
    const header = verifier.finish();
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
    if (!closed) await handle.close().catch(() => undefined);
    await unlink(temp).catch(() => undefined);
    throw asUploadError(error);
  }
}

function asUploadError(error: unknown): unknown {
  if (error instanceof ApiError) return error;
  if (error instanceof ImageFormatError) return badRequest(`${error.message}; nothing was installed`);
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
