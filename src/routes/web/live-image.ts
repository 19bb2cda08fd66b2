/**
 * The live view's stream: Server-Sent Events carrying the data plane's pictures (src/udp/worker/preview-tap.ts)
 * to every page that watches. The tap runs while at least one page is connected and stops when the last
 * one leaves. One JSON encoding per picture, shared by every viewer.
 */
import type { ServerResponse } from 'node:http';
import type { StreamsHal } from '../../hal/index.js';
import type { PreviewFrame } from '../../udp/index.js';
import { silenceOf, type StreamState } from './live-silence.js';

/** A picture as the page receives it. */
export interface LiveImageEvent {
  initId: number;
  columnsPerFrame: number;
  width: number;
  height: number;
  rangeScaleMm: number;
  packetsSent: number;
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

export class LiveImageHub {
  private readonly viewers = new Set<ServerResponse>();
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
    this.viewers.add(res);
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
    for (const res of this.viewers) res.end();
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
    for (const res of this.viewers) res.write(message);
  }
}
