/**
 * The live view's stream: Server-Sent Events carrying the data plane's pictures (src/udp/worker/preview-tap.ts)
 * to every page that watches. The tap runs while at least one page is connected and stops when the last
 * one leaves. One JSON encoding per picture, shared by every viewer.
 *
 * Each viewer gets what it can take: while more than VIEWER_BUFFER_BYTES wait to be sent to it, the newest
 * message is held back (replacing the one held before, which is dropped) and goes out when the client has
 * taken its bytes. So a viewer that does not keep up skips pictures and the unit holds at most that many
 * bytes plus one message for it, however long it lags. One that takes nothing at all is cut off by the HTTP
 * layer (src/routes/http/stalled-writes.ts); the page says so and reconnects.
 */
import type { ServerResponse } from 'node:http';
import type { StreamsHal } from '../../hal/index.js';
import type { PreviewFrame, ZoneStateView } from '../../udp/index.js';
import { silenceOf, type StreamState } from './live-silence.js';

/** A picture as the page receives it. */
export interface LiveImageEvent {
  initId: number;
  columnsPerFrame: number;
  width: number;
  height: number;
  rangeScaleMm: number;
  packetsSent: number;
  /** The live zones' states as the last zone packet carried them (Zone Monitor, firmware 3.2). */
  zones?: ZoneStateView[];
  /** base64 of the row-major bytes. */
  range: string;
  reflectivity: string;
}

export function liveImageEvent(frame: PreviewFrame | null): LiveImageEvent | null {
  if (!frame) return null;
  const { range, reflectivity, ...rest } = frame;
  const b64 = (a: Uint8Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('base64');
  return { ...rest, range: b64(range), reflectivity: b64(reflectivity) };
}

/**
 * The event that says why nothing is sent (`idle`, with the reason when one is known), or that pictures
 * are on their way (`waiting`).
 */
function idleEvent(state: StreamState | undefined): string {
  const silence = state ? silenceOf(state) : null;
  return `event: idle\ndata: ${JSON.stringify(silence ?? { code: 'unknown', reason: null })}\n\n`;
}

/** Bytes that may wait for one viewer before its messages are held back: a few pictures of the largest mode. */
export const VIEWER_BUFFER_BYTES = 512 * 1024;

/** One page watching, and the newest message held back while it is behind. */
class Viewer {
  private held: string | null = null;
  /** Messages replaced while held back, not yet told to the page. */
  private dropped = 0;

  constructor(readonly res: ServerResponse) {
    res.on('drain', () => this.flush());
  }

  send(message: string): void {
    if (this.held === null && this.res.writableLength < VIEWER_BUFFER_BYTES) {
      this.res.write(message);
      return;
    }
    if (this.held !== null) this.dropped++;
    this.held = message;
  }

  private flush(): void {
    if (this.held === null || this.res.writableLength >= VIEWER_BUFFER_BYTES) return;
    // The page learns how many pictures it missed, then gets the newest.
    if (this.dropped > 0) this.res.write(`event: dropped\ndata: {"messages":${this.dropped}}\n\n`);
    this.res.write(this.held);
    this.held = null;
    this.dropped = 0;
  }
}

export class LiveImageHub {
  private readonly viewers = new Map<ServerResponse, Viewer>();
  private unwatch: (() => void) | null = null;
  /** The last message sent, so a page that joins gets a picture (or the reason there is none) at once. */
  private last: string | null = null;

  constructor(private readonly lidar: Pick<StreamsHal, 'watchPreview'> & { streamState?(): StreamState }) {}

  get viewerCount(): number {
    return this.viewers.size;
  }

  /** Streams to `res` until the client goes away. */
  add(res: ServerResponse): void {
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      // Proxies must not hold the stream back.
      'x-accel-buffering': 'no',
    });
    res.write('retry: 2000\n\n');
    this.viewers.set(res, new Viewer(res));
    res.once('close', () => this.remove(res));
    if (!this.lidar.watchPreview) {
      res.write('event: unavailable\ndata: {}\n\n');
      return;
    }
    // The first event at once: why nothing is sent (the data plane, not running, would never say), or the
    // latest picture, or word that the first picture is coming.
    const silence = this.lidar.streamState ? silenceOf(this.lidar.streamState()) : null;
    if (silence) res.write(idleEvent(this.lidar.streamState?.()));
    else res.write(this.last ?? 'event: waiting\ndata: {}\n\n');
    this.unwatch ??= this.lidar.watchPreview((frame) => this.broadcast(frame));
  }

  close(): void {
    for (const res of this.viewers.keys()) res.end();
    this.viewers.clear();
    this.unwatch?.();
    this.unwatch = null;
    this.last = null;
  }

  private remove(res: ServerResponse) {
    this.viewers.delete(res);
    if (this.viewers.size === 0 && this.unwatch) {
      this.unwatch();
      this.unwatch = null;
      this.last = null;
    }
  }

  private broadcast(frame: PreviewFrame | null) {
    const event = liveImageEvent(frame);
    const message = event ? `event: frame\ndata: ${JSON.stringify(event)}\n\n` : idleEvent(this.lidar.streamState?.());
    this.last = event ? message : null;
    for (const viewer of this.viewers.values()) viewer.send(message);
  }
}
