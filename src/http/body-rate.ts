/**
 * Request bodies must keep arriving at a minimum rate (Apache `mod_reqtimeout`'s MinRate): after a
 * short grace, every window of that length must bring at least `rate` bytes per second, or the
 * request is cut. A body that stalls therefore holds its connection for a few seconds, not for the
 * whole request timeout.
 *
 * Bytes are counted on the socket (`bytesRead`), so watching adds no listener to the body stream.
 * Time the *unit* keeps the body waiting is not the client's fault: while bytes sit unread in the
 * request (a handler writing a firmware slot more slowly than the link), or while the client still
 * waits for a `100 Continue` it has not been sent, the window starts over.
 *
 * One timer checks every watched body, however many there are.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface BodyRate {
  /** Bytes per second every window after the grace must average. */
  minBytesPerSecond: number;
  /** The grace after the headers, and the length of each window after it. */
  windowMs: number;
}

interface Watched {
  req: IncomingMessage;
  res: ServerResponse;
  rate: BodyRate;
  windowStart: number;
  windowBytes: number;
  cut: () => void;
}

/** Node marks a response whose interim 100 was written (not part of its typed surface). */
type ContinueAware = ServerResponse & { _sent100?: boolean };

function waitsForContinue(req: IncomingMessage, res: ServerResponse): boolean {
  return /100-continue/i.test(req.headers.expect ?? '') && !(res as ContinueAware)._sent100;
}

export class BodyRateWatch {
  private readonly watched = new Set<Watched>();
  private timer: NodeJS.Timeout | undefined;
  /** Bodies cut for arriving too slowly since start. */
  cut = 0;

  constructor(private readonly checkEveryMs: number) {}

  /** Watches `req`'s body until it is complete or the response ends; `cut` is called once if it is too slow. */
  watch(req: IncomingMessage, res: ServerResponse, rate: BodyRate, cut: () => void): void {
    // An injected request (tests) has no socket to count; a rate of 0 asks for no minimum.
    if (typeof req.socket?.bytesRead !== 'number' || rate.minBytesPerSecond <= 0) return;
    const entry: Watched = {
      req,
      res,
      rate,
      windowStart: Date.now(),
      windowBytes: req.socket.bytesRead,
      cut,
    };
    this.watched.add(entry);
    const stop = () => this.watched.delete(entry);
    req.once('end', stop);
    res.once('close', stop);
    this.timer ??= setInterval(() => this.check(), this.checkEveryMs).unref();
  }

  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.watched.clear();
  }

  private check(): void {
    const now = Date.now();
    for (const entry of this.watched) {
      const { req, res, rate } = entry;
      if (req.complete || req.socket.destroyed) {
        this.watched.delete(entry);
        continue;
      }
      const read = req.socket.bytesRead;
      if (req.readableLength > 0 || waitsForContinue(req, res)) {
        entry.windowStart = now;
        entry.windowBytes = read;
        continue;
      }
      const elapsed = now - entry.windowStart;
      if (elapsed < rate.windowMs) continue;
      if (((read - entry.windowBytes) * 1000) / elapsed < rate.minBytesPerSecond) {
        this.watched.delete(entry);
        this.cut += 1;
        entry.cut();
        continue;
      }
      entry.windowStart = now;
      entry.windowBytes = read;
    }
    if (this.watched.size === 0) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }
}
