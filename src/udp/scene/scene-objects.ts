/**
 * Objects fault injection puts into the simulated scene for a while (docs/faults.md, `object`): boxes
 * given in the sensor frame (metres), still or moving at a constant velocity. They occlude what lies
 * behind them: a beam that meets one first returns from it. Only the packets whose columns can see a box
 * are encoded again, once per frame; the rest of the frame keeps its templates.
 */
import type { LidarImage } from './lidar-image.js';
import type { BeamGeometry, BoxObjectPlan } from '../contract/scene-plan.js';

/** An axis-aligned box in the lidar frame, mm. */
export interface LidarBox {
  min: [number, number, number];
  max: [number, number, number];
}

const OBJECT_REFLECTIVITY = 60;
/** Photons of a 100 % target at 1 m (as the scene's). */
const SIGNAL_AT_1M = 20_000;

/**
 * Where each object is at `nowMs`, as a box in the lidar frame (mm). `lidarToSensor` is row-major, translation
 * in mm; the box is the bounds of the object's corners taken back to the lidar frame (exact for the half turn
 * about z that relates the two frames).
 */
export function boxesAt(
  objects: readonly BoxObjectPlan[],
  nowMs: number,
  lidarToSensor: readonly number[],
): LidarBox[] {
  const R = lidarToSensor;
  return objects.map((o) => {
    const dt = (nowMs - o.startMs) / 1000;
    const min: [number, number, number] = [Infinity, Infinity, Infinity];
    const max: [number, number, number] = [-Infinity, -Infinity, -Infinity];
    for (let corner = 0; corner < 8; corner++) {
      const s = [0, 1, 2].map(
        (k) =>
          (o.positionM[k] + o.velocityMS[k] * dt + ((corner >> k) & 1 ? 0.5 : -0.5) * o.sizeM[k]) * 1000 - R[k * 4 + 3],
      );
      // lidar = Rᵀ (sensor - t)
      for (let k = 0; k < 3; k++) {
        const v = R[k] * s[0] + R[4 + k] * s[1] + R[8 + k] * s[2];
        min[k] = Math.min(min[k], v);
        max[k] = Math.max(max[k], v);
      }
    }
    return { min, max };
  });
}

/** Packet indices (16 columns each) whose beams can meet one of `boxes`. */
export function packetsSeeing(boxes: readonly LidarBox[], geometry: BeamGeometry, columns: number): Set<number> {
  const indices = new Set<number>();
  const packets = columns / 16;
  const spread = Math.max(...geometry.beamAzimuthDeg.map(Math.abs)) + 360 / columns + 1;
  for (const box of boxes) {
    // A box around the rotation axis is seen by every column.
    if (box.min[0] <= 0 && box.max[0] >= 0 && box.min[1] <= 0 && box.max[1] >= 0) {
      for (let i = 0; i < packets; i++) indices.add(i);
      continue;
    }
    const angles: number[] = [];
    for (let c = 0; c < 4; c++)
      angles.push(Math.atan2(c & 2 ? box.max[1] : box.min[1], c & 1 ? box.max[0] : box.min[0]));
    // Unwrapped around the first corner's angle: the box spans less than half a turn seen from outside it.
    const ref = angles[0];
    const rel = angles.map((a) => Math.atan2(Math.sin(a - ref), Math.cos(a - ref)));
    const lo = ((ref + Math.min(...rel)) * 180) / Math.PI - spread;
    const hi = ((ref + Math.max(...rel)) * 180) / Math.PI + spread;
    // Column m looks at encoder angle 360·(1 - m/W): walk the columns whose angle lies in [lo, hi].
    for (let deg = lo; deg <= hi + 1e-9; deg += 360 / columns / 2) {
      const m = Math.round((1 - deg / 360) * columns);
      indices.add(Math.floor((((m % columns) + columns) % columns) / 16));
    }
  }
  return indices;
}

/**
 * Lets `boxes` occlude the returns of `img` (frame columns `firstColumn…`): a beam that meets a box before its
 * first return (or where it had none) returns from the box alone.
 */
export function overlayBoxes(
  img: LidarImage,
  firstColumn: number,
  columns: number,
  geometry: BeamGeometry,
  boxes: readonly LidarBox[],
): void {
  const N = img.pixels;
  const n = geometry.lidarOriginToBeamOriginMm;
  for (let m = 0; m < img.columns; m++) {
    const thetaE = 2 * Math.PI * (1 - (firstColumn + m) / columns);
    const ox = n * Math.cos(thetaE);
    const oy = n * Math.sin(thetaE);
    for (let p = 0; p < N; p++) {
      const phi = (geometry.beamAltitudeDeg[p] * Math.PI) / 180;
      const theta = thetaE - (2 * Math.PI * geometry.beamAzimuthDeg[p]) / 360;
      const d = [Math.cos(theta) * Math.cos(phi), Math.sin(theta) * Math.cos(phi), Math.sin(phi)];
      const o = [ox, oy, 0];
      let nearest = Infinity;
      for (const box of boxes) {
        let t0 = 0;
        let t1 = Infinity;
        for (let k = 0; k < 3 && t0 <= t1; k++) {
          if (d[k] === 0) {
            if (o[k] < box.min[k] || o[k] > box.max[k]) t0 = Infinity;
            continue;
          }
          const a = (box.min[k] - o[k]) / d[k];
          const b = (box.max[k] - o[k]) / d[k];
          t0 = Math.max(t0, Math.min(a, b));
          t1 = Math.min(t1, Math.max(a, b));
        }
        if (t0 <= t1 && t0 < nearest) nearest = t0;
      }
      if (nearest === Infinity) continue;
      const range = Math.round(nearest + n);
      const ray = m * N + p;
      if (img.range1[ray] !== 0 && img.range1[ray] <= range) continue;
      const r = Math.max(range, 1) / 1000;
      img.range1[ray] = range;
      img.reflectivity1[ray] = OBJECT_REFLECTIVITY;
      img.signal1[ray] = Math.min(0xffff, Math.round((SIGNAL_AT_1M * (OBJECT_REFLECTIVITY / 100)) / (r * r)));
      img.range2[ray] = 0;
      img.reflectivity2[ray] = 0;
      img.signal2[ray] = 0;
    }
  }
}
