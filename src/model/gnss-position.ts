/**
 * Where the simulated GNSS receiver on the NMEA input stands (`--gnss LAT,LON[,SPEED,COURSE]`): a fixed position,
 * or one moving at a constant speed and course. Pure.
 */
export interface GnssPlan {
  /** Degrees, north positive. */
  latitudeDeg: number;
  /** Degrees, east positive. */
  longitudeDeg: number;
  /** Ground speed, m/s (0: a fixed position). */
  speedMps: number;
  /** Course over ground, degrees clockwise from north. */
  courseDeg: number;
}

/** Where the receiver stands without `--gnss`: still. */
export const DEFAULT_GNSS: GnssPlan = { latitudeDeg: 37.7749, longitudeDeg: -122.4194, speedMps: 0, courseDeg: 0 };

/** `LAT,LON[,SPEED,COURSE]`; throws a RangeError naming what is wrong. */
export function parseGnssPosition(text: string): GnssPlan {
  const parts = text.split(',').map((s) => Number(s.trim()));
  const [latitudeDeg, longitudeDeg, speedMps = 0, courseDeg = 0] = parts;
  if ((parts.length !== 2 && parts.length !== 4) || parts.some((v) => !Number.isFinite(v)))
    throw new RangeError('must be LAT,LON or LAT,LON,SPEED,COURSE (numbers)');
  if (Math.abs(latitudeDeg) > 90) throw new RangeError('latitude must be -90..90 degrees');
  if (Math.abs(longitudeDeg) > 180) throw new RangeError('longitude must be -180..180 degrees');
  if (speedMps < 0 || speedMps > 100) throw new RangeError('speed must be 0..100 m/s');
  if (courseDeg < 0 || courseDeg >= 360) throw new RangeError('course must be 0..360 degrees (less than 360)');
  return { latitudeDeg, longitudeDeg, speedMps, courseDeg };
}
