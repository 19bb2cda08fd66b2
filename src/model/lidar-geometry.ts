/**
 * Pure derivations from a lidar mode, an azimuth window and beam angles: the figures of
 * `lidar_data_format` and what the data plane needs to fill frames. Formulas: docs/client-behaviour.md,
 * Metadata (they hold on every real metadata file examined).
 */
import { FULL_TURN_MDEG, azimuthWindowWidthMdeg, type LidarMode } from './sensor-config.js';

export type ColumnWindow = [first: number, last: number];

/** `columns_per_frame`: the horizontal resolution of `"1024x10"`. */
export function columnsPerFrame(mode: LidarMode): number {
  return Number(mode.slice(0, mode.indexOf('x')));
}

/** Rotation (= frame) rate in Hz: the `10` of `"1024x10"`. */
export function frameRateHz(mode: LidarMode): number {
  return Number(mode.slice(mode.indexOf('x') + 1));
}

const mod = (n: number, m: number) => ((n % m) + m) % m;

/**
 * `column_window` for `azimuth_window = [a0, a1]` (millidegrees):
 * `[floor((360000 - a1) * cpf / 360000) + 1, floor((360000 - a0) * cpf / 360000)]`, each modulo cpf.
 * Column j looks at azimuth `360000 * (cpf - j) / cpf`, so the window is the inclusive range of columns
 * whose azimuth lies in the window; a first column greater than the last wraps through column 0.
 *
 * The formula cannot tell "every column" from "no column" (both come out as first = last + 1):
 * a window wider than half a turn is every column and is reported as `[0, cpf - 1]` (the full window
 * included); a window too narrow to hold any column gets the one column nearest its middle, so a frame
 * is never empty.
 */
export function columnWindow(azimuthWindow: readonly [number, number], cpf: number): ColumnWindow {
  const [a0, a1] = azimuthWindow;
  const first = mod(Math.floor(((FULL_TURN_MDEG - a1) * cpf) / FULL_TURN_MDEG) + 1, cpf);
  const last = mod(Math.floor(((FULL_TURN_MDEG - a0) * cpf) / FULL_TURN_MDEG), cpf);
  if (first !== mod(last + 1, cpf)) return [first, last];
  const width = azimuthWindowWidthMdeg(azimuthWindow);
  if (width > FULL_TURN_MDEG / 2) return [0, cpf - 1];
  const middle = a0 + width / 2;
  const nearest = mod(Math.round(((FULL_TURN_MDEG - middle) * cpf) / FULL_TURN_MDEG), cpf);
  return [nearest, nearest];
}

/**
 * The measurement id at azimuth `offsetMdeg` (lidar_frame_azimuth_offset), counted as columnWindow counts
 * (measurement id m is at azimuth (1 − m / cpf) turns): a frame starting there starts with the packet holding it.
 */
export function frameStartColumn(offsetMdeg: number, cpf: number): number {
  return mod(Math.floor(((FULL_TURN_MDEG - offsetMdeg) * cpf) / FULL_TURN_MDEG), cpf);
}

/** Whether measurement id `column` lies inside `window` (inclusive, wrapping when first > last). */
export function isColumnInWindow(column: number, [first, last]: readonly [number, number]): boolean {
  return first <= last ? column >= first && column <= last : column >= first || column <= last;
}

/** Number of columns a window holds. */
export function columnsInWindow([first, last]: readonly [number, number], cpf: number): number {
  return mod(last - first, cpf) + 1;
}

/**
 * `pixel_shift_by_row[i] = round(beam_azimuth_angles[i] * cpf / 360)`, rounding halves away from zero
 * as C's round() does (the clients are C++); `+ 0` keeps -0 out of the JSON-facing arrays.
 */
export function pixelShiftByRow(beamAzimuthDeg: readonly number[], cpf: number): number[] {
  return beamAzimuthDeg.map((az) => {
    const x = (az * cpf) / 360;
    return Math.sign(x) * Math.round(Math.abs(x)) + 0;
  });
}
