/**
 * The emitter worker's tap for the live view: while someone watches, a few times a second it posts the
 * picture of the frame the running streams send (src/udp/worker/preview-frame.ts). Nobody watching: no timer,
 * nothing computed, the data plane pays nothing. The picture is computed once per run; a tick only
 * copies it into a message.
 */
import type { ZoneState } from '../packets/zone-packet.js';
import type { PreviewFrame } from '../contract/preview.js';
import { type PreviewImage, previewOf } from './preview-frame.js';
import { zoneStateView } from './zone-state-view.js';

export const PREVIEW_INTERVAL_MS = 250;

/** What the running lidar stream sends, or null when no lidar stream runs. */
export interface PreviewSource {
  initId: number;
  image: PreviewImage;
  columnWindow: readonly [number, number];
  packetsSent(): number;
  /** The zone states of the last zone packet sent, or null while none is sent. */
  zoneStates?(): readonly ZoneState[] | null;
}

export class PreviewTap {
  private timer: NodeJS.Timeout | null = null;
  private cached: { image: PreviewImage; frame: PreviewFrame } | null = null;

  constructor(
    private readonly source: () => PreviewSource | null,
    private readonly post: (frame: PreviewFrame | null) => void,
  ) {}

  set(on: boolean): void {
    if (on && !this.timer) {
      this.timer = setInterval(() => this.tick(), PREVIEW_INTERVAL_MS);
      this.tick();
    } else if (!on && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
      this.cached = null;
    }
  }

  private tick(): void {
    const source = this.source();
    if (!source) {
      this.post(null);
      return;
    }
    if (this.cached?.image !== source.image)
      this.cached = { image: source.image, frame: previewOf(source.image, source.columnWindow, source.initId) };
    const zones = source.zoneStates?.();
    this.post({
      ...this.cached.frame,
      packetsSent: source.packetsSent(),
      ...(zones ? { zones: zones.map(zoneStateView) } : {}),
    });
  }
}
