/**
 * `image_rev` strings of firmware images and the FirmwareBuild they describe. A firmware image
 * names its build only by `image_rev`; `build_rev` and `build_date` of `sensor_info` are derived from
 * it, so the running slot is the one source of all three.
 */
import { imageRev, type FirmwareBuild } from './identity.js';
import { utcIsoString } from './util/utc-time.js';

// ousteros-image-prod-<machine>-v<X.Y.Z>+<YYYYMMDDhhmmss>
const IMAGE_REV =
  /^ousteros-image-prod-([a-z0-9]{1,32})-v(\d{1,4}\.\d{1,4}\.\d{1,4})\+(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/;

export const IMAGE_REV_FORM = 'ousteros-image-prod-<machine>-v<X.Y.Z>+<YYYYMMDDhhmmss>';

export function parseImageRev(rev: string): { build?: FirmwareBuild; problem?: string } {
  const m = IMAGE_REV.exec(rev);
  if (!m) return { problem: `image_rev "${rev.slice(0, 160)}" does not have the form ${IMAGE_REV_FORM}` };
  const [, machine, version, year, month, day, hour, minute, second] = m;
  const buildDate = `${year}-${month}-${day}T${hour}:${minute}:${second}Z`;
  const date = new Date(buildDate);
  // Date accepts e.g. 24:00:00 or rolls 02-30 over; demand that the fields round-trip.
  if (Number.isNaN(date.getTime()) || `${utcIsoString(date.getTime()).slice(0, 19)}Z` !== buildDate) {
    return { problem: `image_rev "${rev}" holds an invalid build time` };
  }
  const build: FirmwareBuild = { version, machine, buildDate };
  if (imageRev(build) !== rev) return { problem: `image_rev "${rev}" does not round-trip` };
  return { build };
}

/** The build an already-verified image_rev names. */
export function buildOfImageRev(rev: string): FirmwareBuild {
  const { build, problem } = parseImageRev(rev);
  if (!build) throw new Error(problem);
  return build;
}
