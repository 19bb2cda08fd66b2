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
 * One timer checks every watched body, however many there are, and also ends each at its deadline
 * (the whole-body timeout, when one is given): no timer is armed per request.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export interface BodyRate {
  /** Bytes per second every window after the grace must average. */
  minBytesPerSecond: number;
  /** The grace after the headers, and the length of each window after it. */
  windowMs: number;
}

interface Watched {
  req: IncomingMessage;
  /** Taken when the watch starts: `req.socket` can be null later, once Node has detached the request from it. */
  socket: Socket;
  res: ServerResponse;
  rate: BodyRate;
  startedAt: number;
  startBytes: number;
  windowStart: number;
  windowBytes: number;
  /** Date.now() by which the body must be complete (Infinity: none). */
  deadline: number;
  cut: () => void;
}

/** Node marks a response whose interim 100 was written (not part of its typed surface). */
type ContinueAware = ServerResponse & { _sent100?: boolean };

function waitsForContinue(req: IncomingMessage, res: ServerResponse): boolean {
  return /100-continue/i.test(req.headers.expect ?? '') && !(res as ContinueAware)._sent100;
}

export class BodyRateWatch {
  private readonly watched = new Set<Watched>();
  private readonly bySocket = new Map<Socket, Watched>();
  private timer: NodeJS.Timeout | undefined;
  /** Bodies cut for arriving too slowly since start (by the timer, or reclaimed for a newcomer). */
  cut = 0;

  constructor(private readonly checkEveryMs: number) {}

  /**
   * Watches `req`'s body until it is complete or the response ends; `cut` is called once if it is too
   * slow, or still incomplete `deadlineMs` after now (checked with the rate, so up to one check
   * interval late).
   */
  watch(req: IncomingMessage, res: ServerResponse, rate: BodyRate, cut: () => void, deadlineMs?: number): void {
    // An injected request (tests) has no socket to count; a rate of 0 asks for no minimum.
    if (typeof req.socket?.bytesRead !== 'number' || rate.minBytesPerSecond <= 0) {
      if (deadlineMs !== undefined) {
        const timer = setTimeout(cut, deadlineMs);
        const clear = () => clearTimeout(timer);
        req.once('end', clear);
        res.once('close', clear);
      }
      return;
    }
    const now = Date.now();
    const socket = req.socket;
    const entry: Watched = {
      req,
      socket,
      res,
      rate,
      startedAt: now,
      startBytes: socket.bytesRead,
      windowStart: now,
      windowBytes: socket.bytesRead,
      deadline: deadlineMs === undefined ? Number.POSITIVE_INFINITY : now + deadlineMs,
      cut,
    };
    this.watched.add(entry);
    this.bySocket.set(socket, entry);
    const stop = () => this.forget(entry);
    req.once('end', stop);
    res.once('close', stop);
    this.timer ??= setInterval(() => this.check(), this.checkEveryMs).unref();
  }

  /**
   * A connection slot is wanted and every one is busy: if the body on `socket` has been below half its
   * minimum rate since its headers (for at least half a window), it is stalling, not working; cut it
   * now (returns true) rather than refuse the newcomer. A body the unit keeps waiting is never cut.
   */
  reclaim(socket: Socket): boolean {
    const entry = this.bySocket.get(socket);
    if (!entry || entry.req.complete || socket.destroyed) return false;
    const { req, res, rate } = entry;
    const age = Date.now() - entry.startedAt;
    if (age < rate.windowMs / 2 || req.readableLength > 0 || waitsForContinue(req, res)) return false;
    if (((socket.bytesRead - entry.startBytes) * 1000) / age >= rate.minBytesPerSecond / 2) return false;
    this.cutNow(entry);
    return true;
  }

  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.watched.clear();
    this.bySocket.clear();
  }

  private forget(entry: Watched): void {
    this.watched.delete(entry);
    if (this.bySocket.get(entry.socket) === entry) this.bySocket.delete(entry.socket);
  }

  private cutNow(entry: Watched): void {
    this.forget(entry);
    this.cut += 1;
    entry.cut();
  }

  private check(): void {
    const now = Date.now();
    for (const entry of this.watched) {
      const { req, res, rate, socket } = entry;
      if (req.complete || socket.destroyed) {
        this.forget(entry);
        continue;
      }
      if (now >= entry.deadline) {
        // Out of time, not too slow: not counted in `cut`.
        this.forget(entry);
        entry.cut();
        continue;
      }
      const read = socket.bytesRead;
      if (req.readableLength > 0 || waitsForContinue(req, res)) {
        entry.windowStart = now;
        entry.windowBytes = read;
        continue;
      }
      const elapsed = now - entry.windowStart;
      if (elapsed < rate.windowMs) continue;
      if (((read - entry.windowBytes) * 1000) / elapsed < rate.minBytesPerSecond) {
        this.cutNow(entry);
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
