/**
 * Renders a zone's mesh into the near/far range images Zone Monitor compares each return with, for one
 * unit's beams (the rules of firmware 3.2, docs/zone-monitor.md): a beam that crosses the mesh twice or
 * more is inside the zone between its nearest and farthest crossings; a beam that crosses it once is
 * inside from the unit up to the crossing; any other beam never is (near = far = 0).
 *
 * Ranges are what the unit reports: millimetres measured as a return's `range` is (from the beam's
 * virtual origin, `r` of docs/udp-packets.md, From range to point). Images are indexed `m * pixels + p`
 * (measurement id m, channel p), the order of the lidar image and of a ZRB file.
 */
import type { Triangles } from './zone-stl.js';

export interface ZoneBeams {
  columnsPerFrame: number;
  /** Degrees, top beam first. */
  beamAltitudeDeg: readonly number[];
  beamAzimuthDeg: readonly number[];
  lidarOriginToBeamOriginMm: number;
  /** Row-major 4x4, translation in millimetres (metadata's lidar_to_sensor_transform). */
  lidarToSensor: readonly number[];
  /**
   * Row-major 4x4, translation in metres (the zone set's sensor_to_body_transform): set for a mesh drawn
   * in the body frame, absent for one drawn in the sensor frame.
   */
  sensorToBody?: readonly number[];
}

export interface RenderedZone {
  columns: number;
  pixels: number;
  nearMm: Uint32Array;
  farMm: Uint32Array;
  /** Beams that cross the zone (far > 0): the most points it can ever hold. */
  crossingBeams: number;
}

/** The product of two row-major 4x4 matrices. */
function multiply(a: readonly number[], b: readonly number[]): number[] {
  const out = new Array<number>(16).fill(0);
  for (let r = 0; r < 4; r++)
    for (let c = 0; c < 4; c++) for (let k = 0; k < 4; k++) out[r * 4 + c] += a[r * 4 + k] * b[k * 4 + c];
  return out;
}

/** Lidar frame (mm) to the mesh's frame (m). */
function lidarToMesh(beams: ZoneBeams): number[] {
  const mmToM = [0.001, 0, 0, 0, 0, 0.001, 0, 0, 0, 0, 0.001, 0, 0, 0, 0, 1];
  const toSensor = multiply(mmToM, [...beams.lidarToSensor]);
  return beams.sensorToBody ? multiply([...beams.sensorToBody], toSensor) : toSensor;
}

/** Bounding sphere of the mesh: beams that miss it are skipped. */
function boundingSphere(tri: Triangles): [number, number, number, number] {
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < tri.length; i += 3)
    for (let k = 0; k < 3; k++) {
      min[k] = Math.min(min[k], tri[i + k]);
      max[k] = Math.max(max[k], tri[i + k]);
    }
  const centre = [0, 1, 2].map((k) => (min[k] + max[k]) / 2);
  let r2 = 0;
  for (let i = 0; i < tri.length; i += 3) {
    const dx = tri[i] - centre[0];
    const dy = tri[i + 1] - centre[1];
    const dz = tri[i + 2] - centre[2];
    r2 = Math.max(r2, dx * dx + dy * dy + dz * dz);
  }
  return [centre[0], centre[1], centre[2], Math.sqrt(r2) + 1e-9];
}

const EPSILON = 1e-12;

/** Renders `triangles` (in the frame `beams.sensorToBody` says) for every beam of a frame. */
export function renderZone(triangles: Triangles, beams: ZoneBeams): RenderedZone {
  const W = beams.columnsPerFrame;
  const N = beams.beamAltitudeDeg.length;
  const nearMm = new Uint32Array(W * N);
  const farMm = new Uint32Array(W * N);
  const T = lidarToMesh(beams);
  const nM = beams.lidarOriginToBeamOriginMm / 1000;
  const [cx, cy, cz, radius] = boundingSphere(triangles);
  const count = triangles.length / 9;
  let crossingBeams = 0;
  for (let m = 0; m < W; m++) {
    const thetaE = 2 * Math.PI * (1 - m / W);
    for (let p = 0; p < N; p++) {
      const phi = (beams.beamAltitudeDeg[p] * Math.PI) / 180;
      const theta = thetaE - (2 * Math.PI * beams.beamAzimuthDeg[p]) / 360;
      // The beam in the lidar frame (metres): from its origin on the rotor, along its direction.
      const lx = Math.cos(theta) * Math.cos(phi);
      const ly = Math.sin(theta) * Math.cos(phi);
      const lz = Math.sin(phi);
      const bx = nM * Math.cos(thetaE) * 1000;
      const by = nM * Math.sin(thetaE) * 1000;
      // Origin (mm in the lidar frame, through T) and direction (rotation only) in the mesh frame.
      const ox = T[0] * bx + T[1] * by + T[3];
      const oy = T[4] * bx + T[5] * by + T[7];
      const oz = T[8] * bx + T[9] * by + T[11];
      let dx = T[0] * lx + T[1] * ly + T[2] * lz;
      let dy = T[4] * lx + T[5] * ly + T[6] * lz;
      let dz = T[8] * lx + T[9] * ly + T[10] * lz;
      const length = Math.hypot(dx, dy, dz);
      dx /= length;
      dy /= length;
      dz /= length;
      // Misses the bounding sphere: no crossing.
      const sx = cx - ox;
      const sy = cy - oy;
      const sz = cz - oz;
      const along = sx * dx + sy * dy + sz * dz;
      const d2 = sx * sx + sy * sy + sz * sz - along * along;
      if (d2 > radius * radius || along + radius < 0) continue;
      let nearest = Infinity;
      let farthest = -Infinity;
      let crossings = 0;
      for (let t = 0; t < count; t++) {
        const distance = intersect(triangles, t * 9, ox, oy, oz, dx, dy, dz);
        if (distance > 0) {
          crossings++;
          if (distance < nearest) nearest = distance;
          if (distance > farthest) farthest = distance;
        }
      }
      if (crossings === 0) continue;
      // A distance along the beam from its origin is a range once the origin offset is added.
      const ray = m * N + p;
      nearMm[ray] = crossings > 1 ? Math.round((nearest + nM) * 1000) : 0;
      farMm[ray] = Math.round((farthest + nM) * 1000);
      crossingBeams++;
    }
  }
  return { columns: W, pixels: N, nearMm, farMm, crossingBeams };
}

/** Möller–Trumbore: distance along the unit direction to triangle `at`, or 0 when the ray misses it. */
function intersect(
  tri: Triangles,
  at: number,
  ox: number,
  oy: number,
  oz: number,
  dx: number,
  dy: number,
  dz: number,
): number {
  const e1x = tri[at + 3] - tri[at];
  const e1y = tri[at + 4] - tri[at + 1];
  const e1z = tri[at + 5] - tri[at + 2];
  const e2x = tri[at + 6] - tri[at];
  const e2y = tri[at + 7] - tri[at + 1];
  const e2z = tri[at + 8] - tri[at + 2];
  const px = dy * e2z - dz * e2y;
  const py = dz * e2x - dx * e2z;
  const pz = dx * e2y - dy * e2x;
  const det = e1x * px + e1y * py + e1z * pz;
  if (Math.abs(det) < EPSILON) return 0;
  const inv = 1 / det;
  const tx = ox - tri[at];
  const ty = oy - tri[at + 1];
  const tz = oz - tri[at + 2];
  const u = (tx * px + ty * py + tz * pz) * inv;
  if (u < 0 || u > 1) return 0;
  const qx = ty * e1z - tz * e1y;
  const qy = tz * e1x - tx * e1z;
  const qz = tx * e1y - ty * e1x;
  const v = (dx * qx + dy * qy + dz * qz) * inv;
  if (v < 0 || u + v > 1) return 0;
  const t = (e2x * qx + e2y * qy + e2z * qz) * inv;
  return t > 0 ? t : 0;
}
