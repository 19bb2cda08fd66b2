/**
 * The live view's source (src/routes/web): pictures of what the lidar stream sends, while watched, and the
 * state that decides whether anything is sent, so that the page can say why not.
 */
import type { SensorConfig } from '../config/index.js';
import type { StreamsHal } from '../hal/index.js';
import { alertDefinition, type UdpFaultRule } from '../model/index.js';
import type { SensorStatus } from './status.js';

/** The live view's source: pictures, and what decides whether anything is sent (to say why not). */
export interface LivePreview extends Pick<StreamsHal, 'watchPreview'> {
  streamState(): {
    config: Readonly<SensorConfig>;
    status: SensorStatus;
    rebooting: boolean;
    udpFaultRules: readonly UdpFaultRule[];
    /** The message of the alert that shut the unit down, while it holds. */
    shutdown?: string;
  };
}

/** What the unit runs now, as the live view needs it. */
export interface PreviewSource {
  config(view: 'active'): Readonly<SensorConfig>;
  status(): SensorStatus;
  rebooting(): boolean;
  /** The alert that shut the unit down, while it holds. */
  shutdownAlert(): string | undefined;
}

/** `watchPreview` is undefined when the data path has no picture to give. */
export function livePreview(lidar: StreamsHal, unit: PreviewSource): LivePreview {
  return {
    watchPreview: lidar.watchPreview?.bind(lidar),
    streamState: () => ({
      config: unit.config('active'),
      status: unit.status(),
      rebooting: unit.rebooting(),
      udpFaultRules: lidar.udpFaultRules?.() ?? [],
      shutdown: shutdownMessage(unit.shutdownAlert()),
    }),
  };
}

function shutdownMessage(alert: string | undefined): string | undefined {
  return alert ? alertDefinition(alert).msg : undefined;
}
