import { describe, expect, it } from 'vitest';
import { boxTriangles, findProduct, renderZone } from '../../src/model/index.js';

/**
 * Independently of the render: the ray of beam (m, p) as the lidar frame's geometry states it
 * (docs/udp-packets.md, From range to point), against the box by the slab method, in the lidar frame.
 */
function expectedRanges(
  product: NonNullable<ReturnType<typeof findProduct>>,
  columns: number,
  m: number,
  p: number,
  boxSensor: { min: number[]; max: number[] },
): [number, number] {
  const n = product.lidarOriginToBeamOriginMm;
  const zOffset = product.lidarToSensorTransform[11];
  // Sensor → lidar frame: a half turn about z and the lidar origin's height; mm.
  const min = [-boxSensor.max[0] * 1000, -boxSensor.max[1] * 1000, boxSensor.min[2] * 1000 - zOffset];
  const max = [-boxSensor.min[0] * 1000, -boxSensor.min[1] * 1000, boxSensor.max[2] * 1000 - zOffset];
  const thetaE = 2 * Math.PI * (1 - m / columns);
  const thetaA = (-2 * Math.PI * product.beamAzimuthDeg[p]) / 360;
  const phi = (product.beamAltitudeDeg[p] * Math.PI) / 180;
  const o = [n * Math.cos(thetaE), n * Math.sin(thetaE), 0];
  const d = [Math.cos(thetaE + thetaA) * Math.cos(phi), Math.sin(thetaE + thetaA) * Math.cos(phi), Math.sin(phi)];
  let near = -Infinity;
  let far = Infinity;
  for (let k = 0; k < 3; k++) {
    const t1 = (min[k] - o[k]) / d[k];
    const t2 = (max[k] - o[k]) / d[k];
    near = Math.max(near, Math.min(t1, t2));
    far = Math.min(far, Math.max(t1, t2));
  }
  if (!(near <= far) || far <= 0) return [0, 0];
  // Starting inside the box: one crossing, inside from the unit.
  return near > 0 ? [Math.round(near + n), Math.round(far + n)] : [0, Math.round(far + n)];
}

describe('the near/far render of a zone', () => {
  it('a box equals the ranges computed ray by ray against the box itself', () => {
    const product = findProduct('OS-1-64')!;
    const columns = 512;
    const box = { min: [2, -0.6, -0.8], max: [3.5, 0.9, 0.4] };
    const rendered = renderZone(boxTriangles(box.min, box.max), {
      columnsPerFrame: columns,
      beamAltitudeDeg: product.beamAltitudeDeg,
      beamAzimuthDeg: product.beamAzimuthDeg,
      lidarOriginToBeamOriginMm: product.lidarOriginToBeamOriginMm,
      lidarToSensor: product.lidarToSensorTransform,
    });
    let crossing = 0;
    let mismatches = 0;
    for (let m = 0; m < columns; m++) {
      for (let p = 0; p < 64; p++) {
        const [near, far] = expectedRanges(product, columns, m, p, box);
        const ray = m * 64 + p;
        if (far > 0) crossing++;
        // A beam through an edge may count the shared edge's triangles twice or not at all: 1 mm of rounding.
        if (Math.abs(rendered.nearMm[ray] - near) > 1 || Math.abs(rendered.farMm[ray] - far) > 1) mismatches++;
      }
    }
    expect(crossing).toBeGreaterThan(100);
    expect(rendered.crossingBeams).toBe(crossing);
    expect(mismatches).toBe(0);
  });

  it('a beam that starts inside the mesh crosses it once: inside from the unit to the crossing', () => {
    const product = findProduct('OS-1-32')!;
    const rendered = renderZone(boxTriangles([-1, -1, -1], [1, 1, 1]), {
      columnsPerFrame: 512,
      beamAltitudeDeg: product.beamAltitudeDeg,
      beamAzimuthDeg: product.beamAzimuthDeg,
      lidarOriginToBeamOriginMm: product.lidarOriginToBeamOriginMm,
      lidarToSensor: product.lidarToSensorTransform,
    });
    expect(rendered.crossingBeams).toBe(512 * 32);
    expect(Math.max(...rendered.nearMm)).toBe(0);
    expect(Math.min(...rendered.farMm)).toBeGreaterThan(900);
  });
});
