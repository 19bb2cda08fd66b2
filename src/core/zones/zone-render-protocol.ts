/** What the main thread and the zone render worker send each other (zone-render-thread.ts, zone-render-worker.ts). */
import type { ZoneBeams } from '../../model/index.js';
import type { CheckedZoneSet, UnreadableZoneSet } from './zone-set.js';

export interface ZoneRenderRequest {
  zip: Uint8Array;
  beams: ZoneBeams;
}

export type ZoneRenderMessage =
  /** Rendering zone `zone` begins. */
  { type: 'zone'; zone: number } | { type: 'done'; result: CheckedZoneSet | UnreadableZoneSet };
