/**
 * Where a few beams must meet the simulated courtyard, computed here from the scene's published
 * facts (src/udp/scene/scene.ts: floor 1.7 m below the lidar origin, walls at x = -7 m and x = +9 m up to
 * z = +2.3 m, a glass pane in the plane x = 5 m) with the client's beam geometry — not with the
 * emitter's ray caster.
 */
import { beamOf, pointOf, type BeamIntrinsics } from '../decoder/geometry.js';

export const FLOOR_Z = -1700;
export const WALL_BACK_X = -7000;
export const WALL_FRONT_X = 9000;
export const WALL_TOP_Z = 2300;
export const GLASS = { x: 5000, yMin: 1000, yMax: 4000, zMin: -1700, zMax: 800 };

export type Expected = { surface: 'floor' | 'wall' | 'sky'; range: number } | null;

/** Range of the first of `floor` / the wall plane `x = wallX` that the beam (m, p) meets; null near an edge. */
export function expectedAlong(
  m: number,
  p: number,
  cpf: number,
  beams: BeamIntrinsics,
  wallX: number,
  edgeMarginMm = 60,
): Expected {
  const { origin: o, direction: d } = beamOf(m, p, cpf, beams);
  const n = beams.lidarOriginToBeamOriginMm;
  const tFloor = d[2] < 0 ? (FLOOR_Z - o[2]) / d[2] : Infinity;
  const tWall = (wallX - o[0]) / d[0];
  const zWall = o[2] + tWall * d[2];
  if (tWall > 0 && zWall <= WALL_TOP_Z && tWall < tFloor) {
    if (Math.abs(zWall - WALL_TOP_Z) < edgeMarginMm || Math.abs(zWall - FLOOR_Z) < edgeMarginMm) return null;
    return { surface: 'wall', range: n + tWall };
  }
  if (tFloor < Infinity) {
    const xFloor = o[0] + tFloor * d[0];
    if (Math.abs(xFloor - wallX) < edgeMarginMm) return null;
    return { surface: 'floor', range: n + tFloor };
  }
  return Math.abs(zWall - WALL_TOP_Z) < edgeMarginMm ? null : { surface: 'sky', range: 0 };
}

/** Measurement id whose beam p points closest to azimuth `deg` (lidar frame, counter-clockwise from +x). */
export function columnTowards(deg: number, p: number, cpf: number, beams: BeamIntrinsics): number {
  // θe + θa = deg with θe = 360 (1 - m / cpf) and θa = -azimuth[p].
  const thetaE = deg + beams.beamAzimuthDeg[p];
  return ((Math.round(cpf * (1 - thetaE / 360)) % cpf) + cpf) % cpf;
}

/** Ranges of the glass pane and of the front wall behind it, or null if the beam misses either. */
export function expectedThroughGlass(
  m: number,
  p: number,
  cpf: number,
  beams: BeamIntrinsics,
): { glass: number; behind: number } | null {
  const { origin: o, direction: d } = beamOf(m, p, cpf, beams);
  const n = beams.lidarOriginToBeamOriginMm;
  if (d[0] <= 0) return null;
  const tGlass = (GLASS.x - o[0]) / d[0];
  const y = o[1] + tGlass * d[1];
  const z = o[2] + tGlass * d[2];
  const margin = 60;
  if (y < GLASS.yMin + margin || y > GLASS.yMax - margin || z < GLASS.zMin + margin || z > GLASS.zMax - margin)
    return null;
  // Only the wall behind is bright enough through the glass to be sure of a second echo (the floor at
  // grazing incidence may fall below detection).
  const behind = expectedAlong(m, p, cpf, beams, WALL_FRONT_X);
  if (behind?.surface !== 'wall') return null;
  return { glass: n + tGlass, behind: behind.range };
}

export { pointOf };
