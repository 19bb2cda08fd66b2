/**
 * The live zones as the data plane watches them, one frame at a time: the returns of the frame that lie
 * between a zone's near and far range at their pixel are counted, the triggering rules applied with their
 * frame-count hysteresis (src/model/zone-trigger.ts), and the states handed to the zone packet. Only the
 * rays that cross a zone are visited (its images are sparse), so a frame costs what the zones cover.
 */
import { isTriggered, nextMetFrames } from '../../model/index.js';
import type { LiveZonePlan, ZoneMonitorPlan } from '../contract/zone-plan.js';
import { firstAtOrAfter, type LidarImage } from '../scene/lidar-image.js';
import { ZONE_ERROR_NO_IMAGES, ZONE_SLOTS, type ZoneState } from '../packets/zone-packet.js';

/** No zone set active: every slot empty, the live zone set hash zero. */
export const NO_ZONES: ZoneMonitorPlan = { hash: new Uint8Array(32), zones: [] };

const modeOf = (zone: LiveZonePlan) => (zone.triggerType === 2 ? 'VACANCY' : 'OCCUPANCY');

export class ZoneWatch {
  readonly hash: Uint8Array;
  private readonly zones: LiveZonePlan[];
  private readonly metFrames: number[];
  readonly states: ZoneState[];

  /** @param columns the frame width of the run: zones with images of another width are not watched */
  constructor(plan: ZoneMonitorPlan, columns: number) {
    this.hash = plan.hash;
    this.zones = plan.zones
      .slice(0, ZONE_SLOTS)
      .map((z) => (z.images?.columns === columns ? z : { ...z, images: null }));
    this.metFrames = this.zones.map(() => 0);
    this.states = this.zones.map((z) => ({
      id: z.id,
      errorFlags: z.images ? 0 : ZONE_ERROR_NO_IMAGES,
      triggerType: z.triggerType,
      triggered: false,
      triggeredFrames: 0,
      count: 0,
      occlusionCount: 0,
      invalidCount: 0,
      maxCount: z.images ? countNearBelowFar(z.images.nearMm, z.images.farMm) : 0,
      minRangeMm: 0,
      maxRangeMm: 0,
      meanRangeMm: 0,
    }));
  }

  /** Live zones in slot order (bit i of a ZONE16 pixel is slot i). */
  get live(): readonly LiveZonePlan[] {
    return this.zones;
  }

  /**
   * Sets the zone bits of `img` (a packet's columns, frame columns `firstColumn…`): bit i where live slot i's
   * near and far ranges hold the pixel's first return.
   */
  markZones(img: LidarImage, firstColumn: number): void {
    const N = img.pixels;
    const from = firstColumn * N;
    const to = from + img.columns * N;
    img.zoneMask.fill(0);
    this.zones.forEach((zone, slot) => {
      const images = zone.images;
      if (!images) return;
      const { rays, nearMm, farMm } = images;
      for (let i = firstAtOrAfter(rays, from); i < rays.length && rays[i] < to; i++) {
        const local = rays[i] - from;
        const r = img.range1[local];
        if (r !== 0 && r >= nearMm[i] && r <= farMm[i]) img.zoneMask[local] |= 1 << slot;
      }
    });
  }

  /** Counts the returns of one frame (`range`: first return per ray `m * pixels + p`, mm) and steps each zone. */
  evaluate(range: Uint32Array): readonly ZoneState[] {
    for (let slot = 0; slot < this.zones.length; slot++) {
      const zone = this.zones[slot];
      const state = this.states[slot];
      const images = zone.images;
      if (!images) continue;
      const { rays, nearMm, farMm } = images;
      let count = 0;
      let occluded = 0;
      let invalid = 0;
      let min = 0;
      let max = 0;
      let sum = 0;
      // The counts as the SDK's emulator defines them (zone_common.py): a ray with no return is invalid only
      // where the zone has a near range; a return at or before the near range is occluding, one from the near
      // to the far range inside (a return at exactly the near range is both). Rays outside `rays` have no far
      // range, so none of their returns counts.
      for (let i = 0; i < rays.length; i++) {
        const r = range[rays[i]];
        const near = nearMm[i];
        if (r === 0) {
          if (near > 0) invalid++;
          continue;
        }
        if (r <= near) occluded++;
        if (r >= near && r <= farMm[i]) {
          if (count === 0 || r < min) min = r;
          if (r > max) max = r;
          sum += r;
          count++;
        }
      }
      const rule = { mode: modeOf(zone), pointCount: zone.pointCount, frameCount: zone.frameCount } as const;
      const met = nextMetFrames(rule, count, this.metFrames[slot]);
      this.metFrames[slot] = met;
      state.triggered = isTriggered(rule, met);
      state.triggeredFrames = state.triggered ? met - zone.frameCount + 1 : 0;
      state.count = count;
      state.occlusionCount = occluded;
      state.invalidCount = invalid;
      state.minRangeMm = min;
      state.maxRangeMm = max;
      // The emulator's mean is a float stored in an integer field: truncated.
      state.meanRangeMm = count ? Math.floor(sum / count) : 0;
    }
    return this.states;
  }
}

function countNearBelowFar(near: Uint32Array, far: Uint32Array): number {
  let n = 0;
  for (let i = 0; i < near.length; i++) if (near[i] < far[i]) n++;
  return n;
}
