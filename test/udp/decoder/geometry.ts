/** Range → point, the formula of docs/udp-packets.md, From range to point (millimetres, lidar frame). */
export interface BeamIntrinsics {
  beamAltitudeDeg: readonly number[];
  beamAzimuthDeg: readonly number[];
  lidarOriginToBeamOriginMm: number;
}

export function pointOf(
  range: number,
  m: number,
  p: number,
  columnsPerFrame: number,
  beams: BeamIntrinsics,
): [number, number, number] {
  const thetaE = 2 * Math.PI * (1 - m / columnsPerFrame);
  const thetaA = (-2 * Math.PI * beams.beamAzimuthDeg[p]) / 360;
  const phi = (2 * Math.PI * beams.beamAltitudeDeg[p]) / 360;
  const n = beams.lidarOriginToBeamOriginMm;
  return [
    (range - n) * Math.cos(thetaE + thetaA) * Math.cos(phi) + n * Math.cos(thetaE),
    (range - n) * Math.sin(thetaE + thetaA) * Math.cos(phi) + n * Math.sin(thetaE),
    (range - n) * Math.sin(phi),
  ];
}

/** The beam of (m, p): origin and unit direction, for computing where it meets a known surface. */
export function beamOf(m: number, p: number, columnsPerFrame: number, beams: BeamIntrinsics) {
  const n = beams.lidarOriginToBeamOriginMm;
  const origin = pointOf(n, m, p, columnsPerFrame, beams);
  const far = pointOf(n + 1, m, p, columnsPerFrame, beams);
  return {
    origin,
    direction: [far[0] - origin[0], far[1] - origin[1], far[2] - origin[2]] as [number, number, number],
  };
}
