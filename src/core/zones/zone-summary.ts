/** The active zone set as the page and the validator show it: its zones, which are live, and what watches them. */
import type { ZoneWatcher } from '../../hal/index.js';
import type { ZoneSetSpec } from '../../model/index.js';

/** What watches the zones, as the page shows it. */
export interface ZoneWatcherSummary {
  hardware: boolean;
  renders_zones: boolean;
  detail: string;
}

/** A zone as GET live_ids' neighbours and the page list it. */
export interface ZoneSummary {
  id: number;
  label: string;
  mode: string;
  point_count: number;
  frame_count: number;
  live: boolean;
}

export interface ZoneSetSummary {
  label: string;
  zones: ZoneSummary[];
  watcher: ZoneWatcherSummary;
}

export function zoneSetSummary(
  spec: ZoneSetSpec,
  liveIds: readonly number[],
  watcher: ZoneWatcher | null,
): ZoneSetSummary {
  const live = new Set(liveIds);
  return {
    label: spec.label,
    watcher: watcher
      ? { hardware: watcher.hardware, renders_zones: watcher.rendersZones, detail: watcher.detail }
      : { hardware: false, renders_zones: false, detail: 'this data path cannot watch zones' },
    zones: spec.zones.map((z) => ({
      id: z.id,
      label: z.label,
      mode: z.mode,
      point_count: z.pointCount,
      frame_count: z.frameCount,
      live: live.has(z.id),
    })),
  };
}
