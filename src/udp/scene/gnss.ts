/**
 * A GNSS receiver on the unit's NMEA input: once a second an RMC sentence with the UTC time, a fix at a fixed
 * position or one moving at a constant speed and course (a slowly driven vehicle), and its checksum (the XOR of
 * the characters between `$` and `*`, two hex digits). The IMU packets of ACCEL32_GYRO32_NMEA carry it.
 */
import type { GnssPlan } from '../../model/index.js';

const EARTH_RADIUS_M = 6_371_000;
const KNOTS_PER_MPS = 3600 / 1852;
/** Seconds between two sentences. */
export const GNSS_PERIOD_S = 1;

/** XOR of the sentence's characters between `$` and `*`, as two upper-case hex digits. */
export function nmeaChecksum(body: string): string {
  let sum = 0;
  for (let i = 0; i < body.length; i++) sum ^= body.charCodeAt(i);
  return sum.toString(16).toUpperCase().padStart(2, '0');
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');

/** `ddmm.mmmmm` / `dddmm.mmmmm` and the hemisphere letter. */
function angle(deg: number, degreeDigits: number, positive: string, negative: string): [string, string] {
  const abs = Math.abs(deg);
  const whole = Math.floor(abs);
  const minutes = (abs - whole) * 60;
  return [`${pad(whole, degreeDigits)}${minutes.toFixed(5).padStart(8, '0')}`, deg < 0 ? negative : positive];
}

/** Where the receiver is `elapsedS` after the start: along the course on a sphere (fine for slow motion). */
export function positionAt(plan: GnssPlan, elapsedS: number): { latitudeDeg: number; longitudeDeg: number } {
  const d = plan.speedMps * elapsedS;
  const course = (plan.courseDeg * Math.PI) / 180;
  const latitudeDeg = plan.latitudeDeg + ((d * Math.cos(course)) / EARTH_RADIUS_M) * (180 / Math.PI);
  const cosLat = Math.cos((plan.latitudeDeg * Math.PI) / 180) || 1e-9;
  const longitudeDeg = plan.longitudeDeg + ((d * Math.sin(course)) / (EARTH_RADIUS_M * cosLat)) * (180 / Math.PI);
  return { latitudeDeg, longitudeDeg };
}

/** The RMC sentence (without line end) for UTC time `utcMs`, `elapsedS` after the receiver started. */
export function rmcSentence(plan: GnssPlan, utcMs: number, elapsedS: number): string {
  const t = new Date(utcMs);
  const time = `${pad(t.getUTCHours(), 2)}${pad(t.getUTCMinutes(), 2)}${pad(t.getUTCSeconds(), 2)}.00`;
  const date = `${pad(t.getUTCDate(), 2)}${pad(t.getUTCMonth() + 1, 2)}${pad(t.getUTCFullYear() % 100, 2)}`;
  const { latitudeDeg, longitudeDeg } = positionAt(plan, elapsedS);
  const [lat, ns] = angle(latitudeDeg, 2, 'N', 'S');
  const [lon, ew] = angle(longitudeDeg, 3, 'E', 'W');
  const knots = (plan.speedMps * KNOTS_PER_MPS).toFixed(2);
  const body = `GPRMC,${time},A,${lat},${ns},${lon},${ew},${knots},${plan.courseDeg.toFixed(1)},${date},,,A`;
  return `$${body}*${nmeaChecksum(body)}`;
}
