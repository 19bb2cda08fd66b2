import { describe, expect, it } from 'vitest';
import { findProduct } from '../../src/model/products.js';
import { emptyLidarImage, fillLidarImage } from '../../src/udp/scene/lidar-image.js';
import { encodeLidarPacket } from '../../src/udp/packets/lidar-packet.js';
import { buildLidarImage, encodeLidarFrame } from './helpers/whole-frame.js';
import { COLUMNS_PER_PACKET, PROFILE_LAYOUTS } from '../../src/udp/packets/lidar-profiles.js';
import { castScene } from '../../src/udp/scene/scene.js';

const product = findProduct('OS-1-64')!;
const scene = castScene({
  columnsPerFrame: 2048,
  beamAltitudeDeg: product.beamAltitudeDeg,
  beamAzimuthDeg: product.beamAzimuthDeg,
  lidarOriginToBeamOriginMm: product.lidarOriginToBeamOriginMm,
  maxRangeMm: product.maxRangeM * 1000,
});
const settings = { returnOrder: 'STRONGEST_TO_WEAKEST', minRangeMm: 0, signalMultiplier: 1 } as const;

describe('lidar image of the scene', () => {
  it('has dual echoes (the glass pane) and orders them as return_order says', () => {
    const strongest = buildLidarImage(scene, settings);
    const nearest = buildLidarImage(scene, { ...settings, returnOrder: 'NEAREST_TO_FARTHEST' });
    const farthest = buildLidarImage(scene, { ...settings, returnOrder: 'FARTHEST_TO_NEAREST' });
    let duals = 0;
    for (let i = 0; i < strongest.range1.length; i++) {
      if (nearest.range2[i] === 0) continue;
      duals++;
      expect(nearest.range2[i] - nearest.range1[i]).toBeGreaterThan(250);
      expect(farthest.range1[i]).toBe(nearest.range2[i]);
      expect(farthest.range2[i]).toBe(nearest.range1[i]);
      expect(strongest.signal1[i]).toBeGreaterThanOrEqual(strongest.signal2[i]);
    }
    expect(duals).toBeGreaterThan(100);
  });

  it('keeps second echoes apart: only the beams through the glass have one, listed once each in ray order', () => {
    const { ray, range } = scene.second;
    expect(ray.length).toBeGreaterThan(100);
    // A few percent of the beams: the dense arrays hold one echo per beam, not two.
    expect(ray.length).toBeLessThan(scene.range.length / 10);
    expect(scene.range.length).toBe(scene.columns * scene.pixels);
    for (let i = 0; i < ray.length; i++) {
      if (i > 0) expect(ray[i]).toBeGreaterThan(ray[i - 1]);
      expect(range[i]).toBeGreaterThan(scene.range[ray[i]]);
    }
  });

  it('reports the farther echo alone when the minimum range drops the nearer one (the glass pane)', () => {
    const nearest = { ...settings, returnOrder: 'NEAREST_TO_FARTHEST' } as const;
    const all = buildLidarImage(scene, nearest);
    const cut = buildLidarImage(scene, { ...nearest, minRangeMm: 7000 });
    let behindGlass = 0;
    for (let i = 0; i < all.range1.length; i++) {
      if (!(all.range1[i] < 7000 && all.range2[i] >= 7000)) continue;
      behindGlass++;
      expect(cut.range1[i]).toBe(all.range2[i]);
      expect(cut.reflectivity1[i]).toBe(all.reflectivity2[i]);
      expect(cut.signal1[i]).toBe(all.signal2[i]);
      expect(cut.range2[i]).toBe(0);
    }
    expect(behindGlass).toBeGreaterThan(100);
  });

  it('serves every frame width from one cast: column m of 512 columns is column 4m of 2048', () => {
    const fine = buildLidarImage(scene, settings);
    const coarse = buildLidarImage(scene, settings, 512);
    const N = product.channels;
    for (const m of [0, 1, 100, 511]) {
      for (let p = 0; p < N; p++) {
        expect(coarse.range1[m * N + p]).toBe(fine.range1[4 * m * N + p]);
        expect(coarse.nearIr[m * N + p]).toBe(fine.nearIr[4 * m * N + p]);
      }
    }
    expect(() => buildLidarImage(scene, settings, 1000)).toThrow(RangeError);
  });

  it('drops echoes inside the minimum range, letting a farther one through', () => {
    const all = buildLidarImage(scene, settings);
    const cut = buildLidarImage(scene, { ...settings, minRangeMm: 500 });
    let near = 0;
    for (let i = 0; i < all.range1.length; i++) {
      expect(cut.range1[i] === 0 || cut.range1[i] >= 500).toBe(true);
      if (all.range1[i] > 0 && all.range1[i] < 500) near++;
    }
    expect(near).toBeGreaterThan(0);
  });

  it('looks like a scene: most beams return, the upper rows see sky beyond the walls, values are plausible', () => {
    const img = buildLidarImage(scene, settings);
    const returns = img.range1.filter((r) => r > 0).length;
    expect(returns / img.range1.length).toBeGreaterThan(0.6);
    expect(returns / img.range1.length).toBeLessThan(0.99);
    for (let i = 0; i < img.range1.length; i++) {
      if (img.range1[i] === 0) continue;
      expect(img.range1[i]).toBeLessThan(20_000);
      expect(img.reflectivity1[i]).toBeGreaterThan(0);
      expect(img.signal1[i]).toBeGreaterThan(0);
    }
    // The retro-reflective sign shows as the brightest reflectivity in the frame.
    expect(img.reflectivity1.reduce((a, b) => Math.max(a, b), 0)).toBeGreaterThan(150);
  });
  it('a frame encoded one packet of columns at a time equals the frame encoded from its whole image', () => {
    // The data plane never holds a whole frame's image (lidar-stream.ts); its packets must not differ.
    const dual = { returnOrder: 'NEAREST_TO_FARTHEST', minRangeMm: 1000, signalMultiplier: 2 } as const;
    for (const columnsPerFrame of [2048, 512]) {
      const format = {
        layout: PROFILE_LAYOUTS.RNG19_RFL8_SIG16_NIR16_DUAL,
        columnsPerFrame,
        pixelsPerColumn: scene.pixels,
        columnWindow: [columnsPerFrame / 8, columnsPerFrame / 2] as [number, number],
      };
      const id = { initId: 3, serialNumber: 122201000123n };
      const whole = encodeLidarFrame(buildLidarImage(scene, dual, columnsPerFrame), format, id);
      const columns = emptyLidarImage(COLUMNS_PER_PACKET, scene.pixels);
      const byPacket = [];
      for (let index = 0; index < columnsPerFrame / COLUMNS_PER_PACKET; index++) {
        fillLidarImage(scene, dual, columnsPerFrame, index * COLUMNS_PER_PACKET, columns);
        const template = encodeLidarPacket(columns, 0, index, format, id);
        if (template) byPacket.push(template);
      }
      expect(byPacket.length).toBe(whole.length);
      expect(whole.length).toBeLessThan(columnsPerFrame / COLUMNS_PER_PACKET); // the window left some out
      byPacket.forEach((t, i) => {
        expect(t.index).toBe(whole[i].index);
        expect(t.crc).toEqual(whole[i].crc);
        expect(t.bytes.equals(whole[i].bytes)).toBe(true);
      });
    }
  });
});
