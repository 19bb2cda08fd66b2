/**
 * Generators of the beam angle tables of a product model, from a few parameters per product line.
 *
 * Real calibrated units never have perfectly even tables: each row is off by a few hundredths of a
 * degree. A fixed, deterministic per-row offset reproduces that, so tables look like real calibration
 * data yet are identical on every start (clients and recordings compare them).
 */

/** Deterministic per-row calibration residual in [-amplitude, amplitude]. */
const residual = (row: number, amplitude: number, phase: number) => amplitude * Math.sin(row * 2.399963 + phase);

/** Three decimals, as real metadata files carry; `+ 0` turns -0 into 0. */
const round3 = (x: number) => Math.round(x * 1000) / 1000 + 0;

/** Beam altitude angles in degrees, top beam first, evenly spread from `topDeg` down to `bottomDeg`. */
export function altitudeTable(channels: number, topDeg: number, bottomDeg: number): readonly number[] {
  const step = (topDeg - bottomDeg) / (channels - 1);
  return Object.freeze(
    Array.from({ length: channels }, (_, row) => {
      const edge = row === 0 || row === channels - 1; // keep the field-of-view limits exact
      return round3(topDeg - row * step + (edge ? 0 : residual(row, 0.02, 0)));
    }),
  );
}

/** Beam azimuth offsets in degrees: `pattern[row % 4]` plus a small per-row residual. */
export function azimuthTable(channels: number, pattern: readonly [number, number, number, number]): readonly number[] {
  return Object.freeze(Array.from({ length: channels }, (_, row) => round3(pattern[row % 4] + residual(row, 0.01, 1))));
}
