/**
 * What the plan tells the synthetic scene (../scene/): the beams' geometry to cast, how returns are reported,
 * and what fault injection puts into the scene (docs/faults.md, `object`, `window_soil`).
 */
import type { ReturnOrder } from '../../model/index.js';

export interface ReturnSettings {
  returnOrder: ReturnOrder;
  minRangeMm: number;
  signalMultiplier: number;
}

export interface BeamGeometry {
  columnsPerFrame: number;
  /** Degrees, one per pixel (row), top beam first. */
  beamAltitudeDeg: readonly number[];
  /** Degrees, one per pixel. */
  beamAzimuthDeg: readonly number[];
  lidarOriginToBeamOriginMm: number;
  /** Longest range the unit reports, mm. */
  maxRangeMm: number;
}

/** What fault injection puts into the scene: boxes, and dirt on the window (window-soil.ts). */
export type SceneObjectPlan = BoxObjectPlan | WindowSoilPlan;

export interface BoxObjectPlan {
  kind?: 'box';
  id: string;
  /** Edge lengths, metres (sensor frame axes). */
  sizeM: [number, number, number];
  /** Centre at `startMs`, metres, sensor frame. */
  positionM: [number, number, number];
  velocityMS: [number, number, number];
  /** Date.now() when the object appeared. */
  startMs: number;
}

export interface WindowSoilPlan {
  kind: 'soil';
  id: string;
  /** Azimuth range, degrees as azimuth_window counts (measurement id m is at (1 − m / columns) turns); wraps when from > to. */
  azimuthDeg: [number, number];
  /** First and last beam (pixel row) behind the patch. */
  beams: [number, number];
  /** The WINDOW byte of those pixels, 1-255. */
  level: number;
}
