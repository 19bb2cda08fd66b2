/**
 * Dirt on the unit's window (docs/faults.md, `window_soil`): a patch of the window in front of some beams over an
 * azimuth range. The pixels that look through it carry its level in their WINDOW byte, and their returns are
 * dimmed by it (signal and near-IR by the light it lets through twice, out and back; reflectivity likewise), and
 * lost from LOST_LEVEL on, as behind a window too dirty to see through. The window is clean elsewhere (WINDOW 0).
 */
import { FULL_TURN_MDEG } from '../../model/index.js';
import type { WindowSoilPlan } from '../contract/scene-plan.js';
import type { LidarImage } from './lidar-image.js';

/** From this level on nothing gets through: the pixels behind it have no return. */
export const LOST_LEVEL = 192;

/** Whether frame column `column` of `columns` looks through the patch's azimuth range. */
function coversColumn(soil: WindowSoilPlan, column: number, columns: number): boolean {
  const mdeg = (FULL_TURN_MDEG * (columns - column)) / columns;
  const deg = (mdeg % FULL_TURN_MDEG) / 1000;
  const [from, to] = soil.azimuthDeg;
  return from <= to ? deg >= from && deg <= to : deg >= from || deg <= to;
}

/** Packet indices (16 columns each) with a column behind one of `soils`. */
export function packetsSoiled(soils: readonly WindowSoilPlan[], columns: number): Set<number> {
  const indices = new Set<number>();
  for (let m = 0; m < columns; m++) if (soils.some((s) => coversColumn(s, m, columns))) indices.add(m >> 4);
  return indices;
}

/** Puts the patches of `soils` on `img` (frame columns `firstColumn…` of a frame `columns` wide). */
export function overlaySoil(
  img: LidarImage,
  firstColumn: number,
  columns: number,
  soils: readonly WindowSoilPlan[],
): void {
  const N = img.pixels;
  for (let m = 0; m < img.columns; m++) {
    for (const soil of soils) {
      if (!coversColumn(soil, firstColumn + m, columns)) continue;
      const through = (1 - soil.level / 255) ** 2;
      const lost = soil.level >= LOST_LEVEL;
      for (let p = Math.max(0, soil.beams[0]); p <= Math.min(N - 1, soil.beams[1]); p++) {
        const ray = m * N + p;
        img.window[ray] = Math.max(img.window[ray], soil.level);
        img.nearIr[ray] = Math.round(img.nearIr[ray] * through);
        if (lost) {
          img.range1[ray] = img.range2[ray] = 0;
          img.reflectivity1[ray] = img.reflectivity2[ray] = 0;
          img.signal1[ray] = img.signal2[ray] = 0;
          continue;
        }
        img.signal1[ray] = Math.round(img.signal1[ray] * through);
        img.signal2[ray] = Math.round(img.signal2[ray] * through);
        img.reflectivity1[ray] = Math.round(img.reflectivity1[ray] * through);
        img.reflectivity2[ray] = Math.round(img.reflectivity2[ray] * through);
      }
    }
  }
}
