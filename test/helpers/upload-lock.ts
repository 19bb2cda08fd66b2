/** Whether the firmware upload lock is free: a garbage upload is judged on its own (400), not refused as busy (409). */
import { waitFor } from './poll.js';

/** Polls garbage uploads until one is not 409 (busy); returns its status (400 when the lock was released). */
export function statusOnceUploadLockFree(baseUrl: string, withinMs: number): Promise<number> {
  return waitFor(
    async () => {
      const res = await fetch(`${baseUrl}/api/v1/system/firmware`, {
        method: 'POST',
        headers: { 'content-type': 'application/octet-stream' },
        body: Buffer.alloc(64, 1),
      });
      return res.status === 409 ? undefined : res.status;
    },
    withinMs,
    'the upload lock to be released',
  );
}
