import { describe, expect, it } from 'vitest';
import { LIDAR_MODES } from '../../src/model/index.js';
import { DEFAULT_PRODUCT, PRODUCT_MODELS, PRODUCT_NAMES, findProduct } from '../../src/model/products.js';

const FIELD_OF_VIEW_DEG = { 'OS-0': 90, 'OS-1': 45, 'OS-2': 22.5 } as const;
// docs/usage.md, Product models: the four-row azimuth pattern of each line, about these values.
const AZIMUTH_PATTERN_DEG = {
  'OS-0': [10.8, 3.6, -3.6, -10.8],
  'OS-1': [4.2, 1.4, -1.4, -4.1],
  'OS-2': [2.1, 0.7, -0.7, -2.1],
} as const;
const BEAM_ORIGIN_MM = { 'OS-0': 27.1, 'OS-1': 15.8, 'OS-2': 13.8 } as const;

describe('product catalogue', () => {
  it('holds OS-0, OS-1 and OS-2 with 32, 64 and 128 channels, each also as a T1 variant', () => {
    const expected = ['OS-0', 'OS-1', 'OS-2'].flatMap((line) =>
      [32, 64, 128].flatMap((n) => [`${line}-${n}`, `${line}-${n}-T1`]),
    );
    expect([...PRODUCT_NAMES].sort()).toEqual(expected.sort());
    expect(new Set(PRODUCT_MODELS.map((m) => m.prodPn)).size).toBe(PRODUCT_MODELS.length);
    expect(findProduct(DEFAULT_PRODUCT)?.name).toBe('OS-1-128');
  });

  it('finds models by their exact name only', () => {
    expect(findProduct('OS-2-32')?.channels).toBe(32);
    expect(findProduct('OS-2-32-T1')?.automotiveEthernet).toBe(true);
    expect(findProduct('os-2-32')).toBeUndefined();
    expect(findProduct('OS-3-32')).toBeUndefined();
  });

  describe.each(PRODUCT_MODELS.map((m) => [m.name, m] as const))('%s', (name, m) => {
    it('has a prod_line clients can parse the beam count from, and a part number', () => {
      expect(m.prodLine).toMatch(/^OS-[012]-(32|64|128)$/);
      expect(Number(m.prodLine.split('-')[2])).toBe(m.channels);
      expect(name.startsWith(m.prodLine)).toBe(true);
      expect(m.automotiveEthernet).toBe(name.endsWith('-T1'));
      expect(m.prodPn).toMatch(/^840-\d{6}-[A-Z]$/);
    });

    it('spreads its beam altitudes over the vertical field of view of its line, top first', () => {
      const fov = FIELD_OF_VIEW_DEG[m.line];
      expect(m.beamAltitudeDeg).toHaveLength(m.channels);
      for (let i = 1; i < m.channels; i++) expect(m.beamAltitudeDeg[i]).toBeLessThan(m.beamAltitudeDeg[i - 1]);
      const spread = m.beamAltitudeDeg[0] - m.beamAltitudeDeg[m.channels - 1];
      expect(spread).toBeGreaterThan(fov - 1);
      expect(spread).toBeLessThan(fov + 1);
      expect(Math.abs(m.beamAltitudeDeg[0] + m.beamAltitudeDeg[m.channels - 1])).toBeLessThan(1);
    });

    it('repeats the four-row azimuth pattern of its line', () => {
      expect(m.beamAzimuthDeg).toHaveLength(m.channels);
      m.beamAzimuthDeg.forEach((az, row) =>
        expect(Math.abs(az - AZIMUTH_PATTERN_DEG[m.line][row % 4])).toBeLessThan(0.15),
      );
    });

    it('has plausible 4x4 row-major transforms', () => {
      for (const t of [m.beamToLidarTransform, m.imuToSensorTransform, m.lidarToSensorTransform]) {
        expect(t).toHaveLength(16);
        expect(t.every(Number.isFinite)).toBe(true);
        expect(t.slice(12)).toEqual([0, 0, 0, 1]);
        // The rotation part is orthonormal: each row has unit length.
        for (let r = 0; r < 3; r++) expect(Math.hypot(t[4 * r], t[4 * r + 1], t[4 * r + 2])).toBeCloseTo(1, 9);
      }
      expect(Math.abs(m.lidarOriginToBeamOriginMm - BEAM_ORIGIN_MM[m.line])).toBeLessThan(0.2);
      expect(m.beamToLidarTransform[3]).toBe(m.lidarOriginToBeamOriginMm);
    });

    it('supports the five lidar modes of the spec', () => {
      expect([...m.lidarModes]).toEqual([...LIDAR_MODES]);
      expect(m.maxRangeM).toBeGreaterThan(0);
    });
  });
});
