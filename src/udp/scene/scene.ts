/**
 * The simulated unit's surroundings and what its beams see of them.
 *
 * A static courtyard in the lidar frame (millimetres, z up, lidar origin at the centre of rotation):
 * a flat floor, four walls that stop below the top beams (so the upper rows see sky), a crate, a
 * pillar, a thin pole beside the unit (inside the 50 cm minimum range), a retro-reflective sign and
 * a glass pane that returns a weak first echo while the wall behind it gives the second. Every beam
 * follows the geometry clients use to turn ranges into points (docs/udp-packets.md, From range to point), so a
 * client's point cloud shows a flat floor and straight walls.
 *
 * The beams are cast once per product, on the finest frame width its modes share (every mode's
 * columns fall on that grid); nothing else of the configuration matters here (lidar-image.ts applies
 * return order, minimum range and signal multiplier). The courtyard's layout is courtyard.ts; what a cast
 * returns, scene-returns.ts.
 */
import { SCENE } from './courtyard.js';
import type { BeamGeometry } from '../contract/scene-plan.js';
import type { SceneReturns } from './scene-returns.js';

/** Photon count of a 100 % Lambertian target at 1 m, normal incidence (signal_multiplier 1). */
const SIGNAL_AT_1M = 20_000;
/** Echoes weaker than this are lost in noise: no return. */
const DETECTION_THRESHOLD = 6;

/** Deterministic noise in [0, 1) for (ray, channel): the scene is the same on every start. */
function hash01(a: number, b: number): number {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b + 0x632be5ab, 0xc2b2ae35);
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d);
  h = Math.imul(h ^ (h >>> 15), 0x846ca68b);
  return ((h ^ (h >>> 16)) >>> 0) / 4294967296;
}
/** Roughly normal, mean 0, sd 1 (sum of three uniforms). */
const gauss = (ray: number, salt: number) =>
  (hash01(ray, salt) + hash01(ray, salt + 1) + hash01(ray, salt + 2) - 1.5) * 2;

/**
 * The nearest surface found so far for the beam being cast. Module-level scratch instead of objects
 * per beam: a 2048 × 128 frame is 262 144 beams, and allocation dominated the cast time.
 */
let hitT = Infinity;
let hitReflectivity = 0;
let hitCos = 0;
/** How brightly ambient light falls on the surface, 0..1 (near-IR). */
let hitLit = 0;

function consider(t: number, reflectivity: number, cosIncidence: number, lit: number): void {
  if (t > 0 && t < hitT) {
    hitT = t;
    hitReflectivity = reflectivity;
    hitCos = cosIncidence;
    hitLit = lit;
  }
}

/** Wall plane hit at t: counts if the point lies on the wall (between floor and top, inside the rectangle). */
function wallHit(
  t: number,
  ox: number,
  oy: number,
  dx: number,
  dy: number,
  dz: number,
  reflectivity: number,
  cos: number,
  lit: number,
  signWall: boolean,
): void {
  const S = SCENE;
  const W = S.walls;
  const z = t * dz;
  if (z < S.floorZMm || z > W.topZMm) return;
  const x = ox + t * dx;
  const y = oy + t * dy;
  if (x < W.xMin - 1 || x > W.xMax + 1 || y < W.yMin - 1 || y > W.yMax + 1) return;
  if (signWall && x >= S.sign.xMin && x <= S.sign.xMax && z >= S.sign.zMin && z <= S.sign.zMax) {
    consider(t, S.sign.reflectivity, cos, lit);
  } else {
    consider(t, reflectivity, cos, lit);
  }
}

/** Slab test along one axis; narrows [tNear, tFar] (kept in boxNear/boxFar), remembering the entry face's cosine. */
let boxNear = 0;
let boxFar = 0;
let boxCos = 0;
function slab(o: number, d: number, min: number, max: number): boolean {
  if (d === 0) return o >= min && o <= max;
  let t1 = (min - o) / d;
  let t2 = (max - o) / d;
  if (t1 > t2) {
    const swap = t1;
    t1 = t2;
    t2 = swap;
  }
  if (t1 > boxNear) {
    boxNear = t1;
    boxCos = Math.abs(d);
  }
  if (t2 < boxFar) boxFar = t2;
  return true;
}

/** Nearest opaque surface along (ox, oy, 0) + t·(dx, dy, dz), t > 0, into the hit* scratch. */
function castOpaque(ox: number, oy: number, dx: number, dy: number, dz: number): void {
  const S = SCENE;
  const W = S.walls;
  hitT = Infinity;
  if (dz < 0) consider(S.floorZMm / dz, S.floorReflectivity, -dz, 1);

  // The beam leaves the rectangle through one wall; it hits it if below the top.
  if (dx > 0) wallHit((W.xMax - ox) / dx, ox, oy, dx, dy, dz, S.wallReflectivity.xMax, dx, 0.55, false);
  else if (dx < 0) wallHit((W.xMin - ox) / dx, ox, oy, dx, dy, dz, S.wallReflectivity.xMin, -dx, 0.35, false);
  if (dy > 0) wallHit((W.yMax - oy) / dy, ox, oy, dx, dy, dz, S.wallReflectivity.yMax, dy, 0.45, true);
  else if (dy < 0) wallHit((W.yMin - oy) / dy, ox, oy, dx, dy, dz, S.wallReflectivity.yMin, -dy, 0.25, false);

  for (const b of S.boxes) {
    boxNear = -Infinity;
    boxFar = Infinity;
    boxCos = 0;
    if (
      slab(ox, dx, b.min[0], b.max[0]) &&
      slab(oy, dy, b.min[1], b.max[1]) &&
      slab(0, dz, b.min[2], b.max[2]) &&
      boxNear <= boxFar
    ) {
      consider(boxNear, b.reflectivity, boxCos, 0.6);
    }
  }

  for (const c of S.cylinders) {
    const px = ox - c.x;
    const py = oy - c.y;
    const a = dx * dx + dy * dy;
    if (a > 1e-12) {
      const bh = px * dx + py * dy;
      const disc = bh * bh - a * (px * px + py * py - c.radius * c.radius);
      if (disc >= 0) {
        const t = (-bh - Math.sqrt(disc)) / a;
        const z = t * dz;
        if (t > 0 && z >= c.zMin && z <= c.zMax) {
          const nx = (px + t * dx) / c.radius;
          const ny = (py + t * dy) / c.radius;
          consider(t, c.reflectivity, Math.max(0, -(nx * dx + ny * dy)), 0.5);
        }
      }
    }
    if (dz < 0) {
      // Top cap.
      const t = c.zMax / dz;
      const hx = px + t * dx;
      const hy = py + t * dy;
      if (hx * hx + hy * hy <= c.radius * c.radius) consider(t, c.reflectivity, -dz, 0.8);
    }
  }
}

/** Distance to the glass pane if the beam crosses it before `limit`, else Infinity. */
function glassDistance(ox: number, oy: number, dx: number, dy: number, dz: number, limit: number): number {
  const g = SCENE.glass;
  if (dx === 0) return Infinity;
  const t = (g.x - ox) / dx;
  if (!(t > 0 && t < limit)) return Infinity;
  const y = oy + t * dy;
  const z = t * dz;
  return y < g.yMin || y > g.yMax || z < g.zMin || z > g.zMax ? Infinity : t;
}

/** Two echoes of one pulse closer than this are one return (pulse width × c / 2). */
const MIN_ECHO_SEPARATION_MM = 300;
const SIGNAL_NOISE = 0.04;
const REFLECTIVITY_NOISE = 0.03;
const RANGE_NOISE_MM = 3;

/** The dense part of the scene while the cast runs. */
type FirstEchoes = Omit<SceneReturns, 'second'>;

/** Second echoes while the cast runs (typed arrays once it is done). */
interface SecondEchoList {
  ray: number[];
  range: number[];
  reflectivity: number[];
  signal: number[];
}

/** Stores echo k (0 first, 1 second) of a ray unless too weak or too far; returns whether it was stored. */
function storeEcho(
  out: FirstEchoes,
  second: SecondEchoList,
  geometry: BeamGeometry,
  ray: number,
  noiseKey: number,
  k: number,
  t: number,
  reflectivity: number,
  cosIncidence: number,
  attenuation: number,
): boolean {
  const rangeMm = t + geometry.lidarOriginToBeamOriginMm + gauss(noiseKey, 11 * k + 1) * RANGE_NOISE_MM;
  const r = Math.max(rangeMm, 1) / 1000;
  const reflFactor = reflectivity <= 100 ? reflectivity / 100 : reflectivity / 10;
  const signal =
    ((SIGNAL_AT_1M * reflFactor * cosIncidence * attenuation) / (r * r)) *
    (1 + SIGNAL_NOISE * gauss(noiseKey, 11 * k + 5));
  if (signal < DETECTION_THRESHOLD || rangeMm > geometry.maxRangeMm) return false;
  // Calibrated reflectivity is what the target would show unobstructed: attenuation lowers it.
  const refl = reflectivity * attenuation * (1 + REFLECTIVITY_NOISE * gauss(noiseKey, 11 * k + 8));
  const calibrated = Math.min(255, Math.max(1, Math.round(refl)));
  if (k === 0) {
    out.range[ray] = Math.round(rangeMm);
    out.reflectivity[ray] = calibrated;
    out.signal[ray] = signal;
  } else {
    second.ray.push(ray);
    second.range.push(Math.round(rangeMm));
    second.reflectivity.push(calibrated);
    // Rounded to single precision as the dense arrays store it.
    second.signal.push(Math.fround(signal));
  }
  return true;
}

/** Cast every beam of a frame through the scene. */
export function castScene(geometry: BeamGeometry): SceneReturns {
  const W = geometry.columnsPerFrame;
  const N = geometry.beamAltitudeDeg.length;
  const n = geometry.lidarOriginToBeamOriginMm;
  const out: FirstEchoes = {
    columns: W,
    pixels: N,
    range: new Uint32Array(W * N),
    reflectivity: new Uint8Array(W * N),
    signal: new Float32Array(W * N),
    nearIr: new Uint16Array(W * N),
  };
  const second: SecondEchoList = { ray: [], range: [], reflectivity: [], signal: [] };
  const cosPhi = geometry.beamAltitudeDeg.map((a) => Math.cos((a * Math.PI) / 180));
  const sinPhi = geometry.beamAltitudeDeg.map((a) => Math.sin((a * Math.PI) / 180));
  const thetaA = geometry.beamAzimuthDeg.map((a) => (-2 * Math.PI * a) / 360);
  const transmission2 = SCENE.glass.transmission ** 2;

  for (let m = 0; m < W; m++) {
    const thetaE = 2 * Math.PI * (1 - m / W);
    const ox = n * Math.cos(thetaE);
    const oy = n * Math.sin(thetaE);
    // Noise follows the beam's direction, not its index, so every frame width sees the same scene.
    const noiseColumn = Math.round((m * 65536) / W);
    for (let p = 0; p < N; p++) {
      const ray = m * N + p;
      const noiseKey = noiseColumn * 256 + p;
      const dx = Math.cos(thetaE + thetaA[p]) * cosPhi[p];
      const dy = Math.sin(thetaE + thetaA[p]) * cosPhi[p];
      const dz = sinPhi[p];
      castOpaque(ox, oy, dx, dy, dz);
      const glassT = glassDistance(ox, oy, dx, dy, dz, hitT);
      let k = 0;
      let ambient: number;
      if (glassT < Infinity) {
        const g = SCENE.glass;
        if (storeEcho(out, second, geometry, ray, noiseKey, k, glassT, g.reflectivity, Math.abs(dx), 1)) k++;
        ambient = 80 + 2200 * (g.reflectivity / 100) * 0.3;
      } else {
        ambient =
          hitT < Infinity ? 80 + 2200 * Math.min(1, hitReflectivity / 100) * hitLit : 1600 + 1600 * Math.max(0, dz); // sky: brighter towards the zenith
      }
      // Echoes closer together than the pulse can separate merge into the first one.
      const separated = glassT === Infinity || hitT - glassT > MIN_ECHO_SEPARATION_MM;
      if (hitT < Infinity && separated)
        storeEcho(
          out,
          second,
          geometry,
          ray,
          noiseKey,
          k,
          hitT,
          hitReflectivity,
          hitCos,
          glassT < Infinity ? transmission2 : 1,
        );
      out.nearIr[ray] = Math.max(0, Math.round(ambient * (1 + 0.06 * gauss(noiseKey, 40))));
    }
  }
  // Rays are cast in increasing order, so the list is sorted by ray already.
  return {
    ...out,
    second: {
      ray: Uint32Array.from(second.ray),
      range: Uint32Array.from(second.range),
      reflectivity: Uint8Array.from(second.reflectivity),
      signal: Float32Array.from(second.signal),
    },
  };
}
