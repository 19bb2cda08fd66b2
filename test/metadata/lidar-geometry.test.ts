import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { LIDAR_MODES, maxAzimuthWidthMdeg, SIGNAL_MULTIPLIERS } from '../../src/model/index.js';
import {
  columnWindow,
  columnsInWindow,
  columnsPerFrame,
  frameRateHz,
  isColumnInWindow,
  pixelShiftByRow,
} from '../../src/model/lidar-geometry.js';

const TURN = 360_000;

/** The azimuth of column j on a real unit: column indices count clockwise from azimuth 0 (docs/client-behaviour.md, Metadata). */
const columnAzimuthMdeg = (j: number, cpf: number) => ((TURN * (cpf - j)) / cpf) % TURN;

/** Columns whose azimuth lies in [a0, a1) — wrapping through 0 when a0 > a1 — enumerated one by one. */
function columnsLookingInto([a0, a1]: [number, number], cpf: number): Set<number> {
  const inside = (az: number) => (a0 <= a1 ? az >= a0 && az < a1 : az >= a0 || az < a1);
  const set = new Set<number>();
  for (let j = 0; j < cpf; j++) if (inside(columnAzimuthMdeg(j, cpf)) || (a1 === TURN && a0 === 0)) set.add(j);
  return set;
}

function columnsOf(window: [number, number], cpf: number): Set<number> {
  const set = new Set<number>();
  for (let j = 0; j < cpf; j++) if (isColumnInWindow(j, window)) set.add(j);
  return set;
}

describe('columns_per_frame and frame rate', () => {
  it.each([
    ['512x10', 512, 10],
    ['1024x10', 1024, 10],
    ['2048x10', 2048, 10],
    ['512x20', 512, 20],
    ['1024x20', 1024, 20],
  ] as const)('%s → %i columns at %i Hz', (mode, cpf, hz) => {
    expect(columnsPerFrame(mode)).toBe(cpf);
    expect(frameRateHz(mode)).toBe(hz);
  });
});

describe('column_window', () => {
  it('reproduces the sample pair of docs/client-behaviour.md exactly', () => {
    expect(columnWindow([300_000, 100_000], 512)).toEqual([370, 85]);
  });

  it.each(LIDAR_MODES)('full window → [0, cpf-1] in %s', (mode) => {
    const cpf = columnsPerFrame(mode);
    expect(columnWindow([0, TURN], cpf)).toEqual([0, cpf - 1]);
  });

  it('follows the formula of docs/client-behaviour.md, written out independently', () => {
    const formula = ([a0, a1]: [number, number], cpf: number) => [
      (Math.floor(((TURN - a1) * cpf) / TURN) + 1) % cpf,
      Math.floor(((TURN - a0) * cpf) / TURN) % cpf,
    ];
    for (const mode of LIDAR_MODES) {
      const cpf = columnsPerFrame(mode);
      for (const w of [
        [90_000, 270_000],
        [0, 120_000],
        [300_000, 60_000],
        [10_000, 20_000],
        [359_000, 1_000],
        [0, 180_000],
      ] as [number, number][])
        expect(columnWindow(w, cpf), `${mode} ${w}`).toEqual(formula(w, cpf));
    }
  });

  it('holds exactly the columns looking into the window (any window, any mode)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...LIDAR_MODES),
        fc.integer({ min: 0, max: TURN }),
        fc.integer({ min: 0, max: TURN }),
        (mode, a0, a1) => {
          const cpf = columnsPerFrame(mode);
          const window = columnWindow([a0, a1], cpf);
          for (const c of window) {
            expect(Number.isInteger(c)).toBe(true);
            expect(c).toBeGreaterThanOrEqual(0);
            expect(c).toBeLessThanOrEqual(cpf - 1);
          }
          const expected = columnsLookingInto([a0, a1], cpf);
          const got = columnsOf(window, cpf);
          expect(columnsInWindow(window, cpf)).toBe(got.size);
          if (expected.size > 0) expect([...got]).toEqual([...expected]);
          // A window too narrow to hold a column centre still gets exactly one column.
          else expect(got.size).toBe(1);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('windows at the signal-multiplier limits hold about width/360° of the columns', () => {
    for (const multiplier of SIGNAL_MULTIPLIERS) {
      const width = maxAzimuthWidthMdeg(multiplier);
      // A full turn is only expressible as [0, 360000]; [a, a] is an empty window.
      for (const start of width === TURN ? [0] : [0, 45_000, 300_000]) {
        const a1 = width === TURN ? TURN : (start + width) % TURN;
        for (const mode of LIDAR_MODES) {
          const cpf = columnsPerFrame(mode);
          const count = columnsInWindow(columnWindow([start, a1], cpf), cpf);
          expect(Math.abs(count - (cpf * width) / TURN), `${multiplier}x ${start} ${mode}`).toBeLessThanOrEqual(1);
        }
      }
    }
  });
});

describe('pixel_shift_by_row', () => {
  it('is round(azimuth × cpf / 360) per row', () => {
    expect(pixelShiftByRow([4.23, 1.41, -1.4, -4.16], 1024)).toEqual([12, 4, -4, -12]);
    expect(pixelShiftByRow([4.23, 1.41, -1.4, -4.16], 512)).toEqual([6, 2, -2, -6]);
    expect(pixelShiftByRow([10.82, 3.61, -3.6, -10.79], 2048)).toEqual([62, 21, -20, -61]);
  });

  it('rounds halves away from zero like C round() and never yields -0', () => {
    expect(pixelShiftByRow([0.17578125, -0.17578125, -0.01], 1024)).toEqual([1, -1, 0]);
    expect(Object.is(pixelShiftByRow([-0.01], 1024)[0], 0)).toBe(true);
  });
});
