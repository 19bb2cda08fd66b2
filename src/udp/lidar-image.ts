/**
 * The channel data of one frame for an active configuration: the scene's echoes ordered by
 * `return_order`, without those closer than `min_range_threshold_cm`, signal scaled by
 * `signal_multiplier`. Computed once per configuration; packets copy from it.
 */
import type { ReturnOrder } from '../model/index.js';
import type { SceneReturns } from './scene.js';

export interface ReturnSettings {
  returnOrder: ReturnOrder;
  minRangeMm: number;
  signalMultiplier: number;
}

export interface LidarImage {
  columns: number;
  pixels: number;
  /** Indexed by `m * pixels + p`. */
  range1: Uint32Array;
  reflectivity1: Uint8Array;
  signal1: Uint16Array;
  range2: Uint32Array;
  reflectivity2: Uint8Array;
  signal2: Uint16Array;
  nearIr: Uint16Array;
}

/** A zeroed image of `columns` × `pixels` (range 0 = no return). */
export function emptyLidarImage(columns: number, pixels: number): LidarImage {
  const size = columns * pixels;
  return {
    columns,
    pixels,
    range1: new Uint32Array(size),
    reflectivity1: new Uint8Array(size),
    signal1: new Uint16Array(size),
    range2: new Uint32Array(size),
    reflectivity2: new Uint8Array(size),
    signal2: new Uint16Array(size),
    nearIr: new Uint16Array(size),
  };
}

/**
 * Writes frame columns `firstColumn` … `firstColumn + into.columns − 1` of a frame `columns` wide
 * into `into` (its column 0 is frame column `firstColumn`), overwriting all it held: the data plane encodes a frame
 * one packet of columns at a time through one small image instead of holding the whole frame's.
 */
export function fillLidarImage(
  scene: SceneReturns,
  settings: ReturnSettings,
  columns: number,
  firstColumn: number,
  into: LidarImage,
): LidarImage {
  if (scene.columns % columns !== 0)
    throw new RangeError(`a scene of ${scene.columns} columns cannot serve frames of ${columns}`);
  const last = firstColumn + into.columns - 1;
  if (into.pixels !== scene.pixels || firstColumn < 0 || last >= columns)
    throw new RangeError(`columns ${firstColumn}-${last} of ${columns} (${into.pixels} pixels) do not fit this scene`);
  const stride = scene.columns / columns;
  const N = scene.pixels;
  const img = into;
  for (const field of [img.range1, img.range2, img.signal1, img.signal2, img.reflectivity1, img.reflectivity2])
    field.fill(0);
  const { returnOrder, minRangeMm, signalMultiplier } = settings;
  for (let m = 0; m < img.columns; m++) {
    for (let p = 0; p < N; p++) {
      const ray = m * N + p;
      const sceneRay = (firstColumn + m) * stride * N + p;
      img.nearIr[ray] = scene.nearIr[sceneRay];
      // Echoes at or beyond the minimum range, nearest first (the scene's order).
      let near = -1;
      let far = -1;
      for (let k = 0; k < 2; k++) {
        const r = scene.range[sceneRay * 2 + k];
        if (r === 0 || r < minRangeMm) continue;
        if (near < 0) near = sceneRay * 2 + k;
        else far = sceneRay * 2 + k;
      }
      if (near < 0) continue;
      const farFirst =
        far >= 0 &&
        (returnOrder === 'FARTHEST_TO_NEAREST' ||
          (returnOrder === 'STRONGEST_TO_WEAKEST' && scene.signal[far] > scene.signal[near]));
      const first = farFirst ? far : near;
      const second = farFirst ? near : far;
      img.range1[ray] = scene.range[first];
      img.reflectivity1[ray] = scene.reflectivity[first];
      img.signal1[ray] = Math.min(0xffff, Math.round(scene.signal[first] * signalMultiplier));
      if (second >= 0) {
        img.range2[ray] = scene.range[second];
        img.reflectivity2[ray] = scene.reflectivity[second];
        img.signal2[ray] = Math.min(0xffff, Math.round(scene.signal[second] * signalMultiplier));
      }
    }
  }
  return img;
}
