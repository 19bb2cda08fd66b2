/**
 * The channel data of one frame for an active configuration: the scene's echoes ordered by
 * `return_order`, without those closer than `min_range_threshold_cm`, signal scaled by
 * `signal_multiplier`. Computed once per configuration; packets copy from it.
 */
import type { ReturnSettings } from '../contract/scene-plan.js';
import type { SceneReturns } from './scene-returns.js';

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
  /** Bit i: live zone slot i holds the first return (ZONE16 profiles; zero unless zones are watched). */
  zoneMask: Uint16Array;
  /** The WINDOW byte: how soiled the window is in front of the pixel (0 clean; fault injection, window-soil.ts). */
  window: Uint8Array;
}

/** Whether an echo at `rangeMm` (0 = none) is reported under min_range_threshold_cm. */
const kept = (rangeMm: number, minRangeMm: number) => rangeMm !== 0 && rangeMm >= minRangeMm;

/** Photons at signal_multiplier 1 -> the u16 signal field. */
const scaledSignal = (photons: number, multiplier: number) => Math.min(0xffff, Math.round(photons * multiplier));

/** Index of the first element of the sorted `rays` that is ≥ `ray` (binary search). */
export function firstAtOrAfter(rays: Uint32Array, ray: number): number {
  let low = 0;
  let high = rays.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (rays[mid] < ray) low = mid + 1;
    else high = mid;
  }
  return low;
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
    zoneMask: new Uint16Array(size),
    window: new Uint8Array(size),
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
  img.zoneMask.fill(0);
  img.window.fill(0);
  const { returnOrder, minRangeMm, signalMultiplier } = settings;
  const second = scene.second;
  // Rays are visited in increasing order: one cursor walks the sorted second echoes alongside.
  let next = firstAtOrAfter(second.ray, firstColumn * stride * N);
  for (let m = 0; m < img.columns; m++) {
    for (let p = 0; p < N; p++) {
      const ray = m * N + p;
      const sceneRay = (firstColumn + m) * stride * N + p;
      img.nearIr[ray] = scene.nearIr[sceneRay];
      while (next < second.ray.length && second.ray[next] < sceneRay) next++;
      const hasSecond = next < second.ray.length && second.ray[next] === sceneRay;
      // Echoes at or beyond the minimum range, nearest first (the scene's order).
      const firstKept = kept(scene.range[sceneRay], minRangeMm);
      const secondKept = hasSecond && kept(second.range[next], minRangeMm);
      if (!firstKept && !secondKept) continue;
      // The nearer kept echo, and the farther one when both are kept.
      const nearRange = firstKept ? scene.range[sceneRay] : second.range[next];
      const nearReflectivity = firstKept ? scene.reflectivity[sceneRay] : second.reflectivity[next];
      const nearSignal = firstKept ? scene.signal[sceneRay] : second.signal[next];
      const both = firstKept && secondKept;
      const farFirst =
        both &&
        (returnOrder === 'FARTHEST_TO_NEAREST' ||
          (returnOrder === 'STRONGEST_TO_WEAKEST' && second.signal[next] > nearSignal));
      img.range1[ray] = farFirst ? second.range[next] : nearRange;
      img.reflectivity1[ray] = farFirst ? second.reflectivity[next] : nearReflectivity;
      img.signal1[ray] = scaledSignal(farFirst ? second.signal[next] : nearSignal, signalMultiplier);
      if (both) {
        img.range2[ray] = farFirst ? nearRange : second.range[next];
        img.reflectivity2[ray] = farFirst ? nearReflectivity : second.reflectivity[next];
        img.signal2[ray] = scaledSignal(farFirst ? nearSignal : second.signal[next], signalMultiplier);
      }
    }
  }
  return img;
}
