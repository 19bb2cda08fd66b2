/**
 * A small picture of the lidar frame being sent, for the web page's live view: every
 * PREVIEW_COLUMN_STEP-th column of the frame (so its width follows `lidar_mode`), every row, range and
 * reflectivity of the first return as bytes. Columns outside the column window are sent invalid and
 * show as 0 here. Pure functions of the frame image.
 */
import type { LidarImage } from '../scene/lidar-image.js';
import type { PreviewFrame } from '../contract/preview.js';

export const PREVIEW_COLUMN_STEP = 4;

/** The part of a frame image the picture needs. */
export type PreviewImage = Pick<LidarImage, 'columns' | 'pixels' | 'range1' | 'reflectivity1'> & {
  /**
   * Per row, the `pixel_shift_by_row` of lidar_data_format: a row's beams point that many columns off,
   * so the picture is destaggered (each row rolled back) to show the scene as it is.
   */
  pixelShiftByRow: readonly number[];
};

const inWindow = (m: number, [first, last]: readonly [number, number]) =>
  first <= last ? m >= first && m <= last : m >= first || m <= last;

/** The picture of one run's frame (the counter is filled in per preview). */
export function previewOf(image: PreviewImage, columnWindow: readonly [number, number], initId: number): PreviewFrame {
  const width = Math.floor(image.columns / PREVIEW_COLUMN_STEP);
  const height = image.pixels;
  const range = new Uint8Array(width * height);
  const reflectivity = new Uint8Array(width * height);
  let maxMm = 1;
  for (let i = 0; i < image.range1.length; i++) maxMm = Math.max(maxMm, image.range1[i]);
  const scale = 254 / Math.sqrt(maxMm);
  const columns = image.columns;
  for (let x = 0; x < width; x++) {
    for (let y = 0; y < height; y++) {
      const m = (((x * PREVIEW_COLUMN_STEP - (image.pixelShiftByRow[y] ?? 0)) % columns) + columns) % columns;
      if (!inWindow(m, columnWindow)) continue;
      const ray = m * height + y;
      const mm = image.range1[ray];
      range[y * width + x] = mm === 0 ? 0 : 1 + Math.round(Math.sqrt(mm) * scale);
      reflectivity[y * width + x] = image.reflectivity1[ray];
    }
  }
  return {
    initId,
    columnsPerFrame: image.columns,
    width,
    height,
    range,
    rangeScaleMm: maxMm,
    reflectivity,
    packetsSent: 0,
  };
}
