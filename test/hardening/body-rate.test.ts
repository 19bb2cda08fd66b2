/**
 * The body watch's deadline: a body still incomplete at its deadline is cut even when it keeps
 * arriving fast enough, by the watch's one shared timer (no timer per request); a body that completes
 * in time is never cut; a request whose socket cannot be counted still gets its deadline.
 * Fake timers drive the clock, so nothing here waits or depends on the machine's speed.
 */
import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BodyRateWatch } from '../../src/routes/http/body-rate.js';

const CHECK_MS = 50;
const RATE = { minBytesPerSecond: 1000, windowMs: 200 };

function fakeRequest(countable = true) {
  const socket = { bytesRead: 0, destroyed: false };
  const req = Object.assign(new EventEmitter(), {
    socket: countable ? socket : {},
    headers: {},
    complete: false,
    readableLength: 0,
  });
  const res = new EventEmitter();
  return { req: req as unknown as IncomingMessage, res: res as unknown as ServerResponse, socket, raw: req };
}

describe('body watch deadline', () => {
  let watch: BodyRateWatch;
  beforeEach(() => {
    vi.useFakeTimers();
    watch = new BodyRateWatch(CHECK_MS);
  });
  afterEach(() => {
    watch.close();
    vi.useRealTimers();
  });

  it('cuts a body that keeps arriving fast enough but is still incomplete at its deadline, without counting it as slow', () => {
    const { req, res, socket } = fakeRequest();
    const cut = vi.fn();
    watch.watch(req, res, RATE, cut, 1000);
    for (let t = 0; t < 950; t += CHECK_MS) {
      socket.bytesRead += 500; // 10,000 bytes per second: never too slow
      vi.advanceTimersByTime(CHECK_MS);
    }
    expect(cut).not.toHaveBeenCalled();
    socket.bytesRead += 500;
    vi.advanceTimersByTime(2 * CHECK_MS);
    expect(cut).toHaveBeenCalledTimes(1);
    expect(watch.cut).toBe(0);
    vi.advanceTimersByTime(2000);
    expect(cut).toHaveBeenCalledTimes(1);
  });

  it('never cuts a body that completes before its deadline', () => {
    const { req, res, socket, raw } = fakeRequest();
    const cut = vi.fn();
    watch.watch(req, res, RATE, cut, 1000);
    socket.bytesRead += 100;
    vi.advanceTimersByTime(CHECK_MS);
    raw.complete = true;
    raw.emit('end');
    vi.advanceTimersByTime(5000);
    expect(cut).not.toHaveBeenCalled();
  });

  it('without a countable socket the deadline still holds (and no rate is checked)', () => {
    const { req, res } = fakeRequest(false);
    const cut = vi.fn();
    watch.watch(req, res, RATE, cut, 1000);
    vi.advanceTimersByTime(999);
    expect(cut).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(cut).toHaveBeenCalledTimes(1);
    const other = fakeRequest(false);
    const notCut = vi.fn();
    watch.watch(other.req, other.res, RATE, notCut, 1000);
    other.raw.emit('end');
    vi.advanceTimersByTime(5000);
    expect(notCut).not.toHaveBeenCalled();
  });

  it('a slow body is still cut for its rate before its deadline, and counted', () => {
    const { req, res } = fakeRequest();
    const cut = vi.fn();
    watch.watch(req, res, RATE, cut, 30_000);
    vi.advanceTimersByTime(RATE.windowMs + 2 * CHECK_MS);
    expect(cut).toHaveBeenCalledTimes(1);
    expect(watch.cut).toBe(1);
  });
});
