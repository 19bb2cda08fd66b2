/**
 * The simulated unit's surroundings: a static courtyard in the lidar frame (millimetres, z up, lidar origin
 * at the centre of rotation), which scene.ts casts the beams into.
 */

export interface Box {
  min: [number, number, number];
  max: [number, number, number];
  reflectivity: number;
}
export interface Cylinder {
  x: number;
  y: number;
  radius: number;
  zMin: number;
  zMax: number;
  reflectivity: number;
}

/** The scene, published so that tests can state expectations about it. Reflectivity in percent (>100: retro-reflector). */
export const SCENE = {
  floorZMm: -1700,
  /** Walls: planes x = xMin / xMax, y = yMin / yMax, from the floor up to topZMm. */
  walls: { xMin: -7000, xMax: 9000, yMin: -5500, yMax: 6000, topZMm: 2300 },
  wallReflectivity: { xMin: 38, xMax: 52, yMin: 30, yMax: 45 },
  floorReflectivity: 14,
  boxes: [{ min: [3000, -2500, -1700], max: [4200, -1300, -700], reflectivity: 68 }] as readonly Box[],
  cylinders: [
    { x: -2500, y: 2500, radius: 300, zMin: -1700, zMax: 2300, reflectivity: 26 },
    // A thin pole beside the unit, close enough to fall inside min_range_threshold_cm = 50.
    { x: 0, y: -420, radius: 35, zMin: -1700, zMax: -50, reflectivity: 40 },
  ] as readonly Cylinder[],
  /** Glass pane in the plane x = glass.x: a weak first return, and the wall behind seen through it. */
  glass: { x: 5000, yMin: 1000, yMax: 4000, zMin: -1700, zMax: 800, reflectivity: 5, transmission: 0.8 },
  /** Retro-reflective sign on the wall y = yMax. */
  sign: { xMin: -1000, xMax: 200, zMin: -300, zMax: 300, reflectivity: 220 },
} as const;
