/**
 * Per-zone counts as the vendor SDK's reference emulator defines them (python/src/ouster/sdk/core/zone_common.py,
 * `_calc_counts`), each computed here independently over the whole dense frame and compared with what the data
 * plane's ZoneWatch reports from its sparse images.
 */
import { describe, expect, it } from 'vitest';
import { ZoneWatch } from '../../src/udp/worker/zone-watch.js';

const COLUMNS = 8;
const PIXELS = 4;
const RAYS = COLUMNS * PIXELS;

/** Dense near/far images: rays 0..23 cross the zone, 0..15 twice (near 1000, far 3000), 16..23 once (near 0, far 2000). */
const near = new Uint32Array(RAYS);
const far = new Uint32Array(RAYS);
for (let ray = 0; ray < 24; ray++) {
  near[ray] = ray < 16 ? 1000 : 0;
  far[ray] = ray < 16 ? 3000 : 2000;
}

/** A frame's first returns touching every rule's edge: no return, before, at and past the near range, at the far range, beyond. */
const range = new Uint32Array(RAYS);
range.set([0, 0, 500, 999, 1000, 1001, 2000, 2999, 3000, 3001, 4000, 1500, 1501, 2500, 0, 1000]);
range.set([0, 0, 1, 1999, 2000, 2001, 100, 0], 16);
range.set([0, 700, 1200, 0, 0, 0, 0, 50], 24);

/** The emulator's definitions, over every pixel of the frame. */
function emulator() {
  let count = 0;
  let occlusion = 0;
  let invalid = 0;
  const inside: number[] = [];
  for (let i = 0; i < RAYS; i++) {
    const r = range[i];
    if (r > 0 && near[i] <= r && r <= far[i]) {
      count++;
      inside.push(r);
    }
    if (r === 0 && near[i] > 0) invalid++;
    if (r > 0 && r <= near[i]) occlusion++;
  }
  const mean = inside.length ? inside.reduce((a, b) => a + b, 0) / inside.length : 0;
  return {
    mean,
    count,
    occlusionCount: occlusion,
    invalidCount: invalid,
    // A float mean stored in the packet's integer field: numpy truncates it.
    meanRangeMm: Math.trunc(mean),
    minRangeMm: inside.length ? Math.min(...inside) : 0,
    maxRangeMm: inside.length ? Math.max(...inside) : 0,
    maxCount: near.filter((n, i) => n < far[i]).length,
  };
}

describe('zone counts as the SDK emulator defines them', () => {
  it('count, occlusion, invalid, min, max, truncated mean and max_count', () => {
    const rays = Uint32Array.from({ length: 24 }, (_, i) => i);
    const watch = new ZoneWatch(
      {
        hash: new Uint8Array(32),
        zones: [
          {
            id: 7,
            triggerType: 1,
            pointCount: 1,
            frameCount: 1,
            images: { columns: COLUMNS, rays, nearMm: near.slice(0, 24), farMm: far.slice(0, 24) },
          },
        ],
      },
      COLUMNS,
    );
    const [state] = watch.evaluate(range);
    const { mean, ...expected } = emulator();
    // The frame's mean has a fraction of a half or more: truncating and rounding differ.
    expect(mean - Math.trunc(mean)).toBeGreaterThanOrEqual(0.5);
    expect({
      count: state.count,
      occlusionCount: state.occlusionCount,
      invalidCount: state.invalidCount,
      meanRangeMm: state.meanRangeMm,
      minRangeMm: state.minRangeMm,
      maxRangeMm: state.maxRangeMm,
      maxCount: state.maxCount,
    }).toEqual(expected);
  });
});
