/**
 * A narrower `azimuth_window` on recorded packets: columns outside the active column window get status 0
 * and zeroed channel data (timestamp and measurement id stay), packets wholly outside it are not sent,
 * as a live unit does (docs/udp-packets.md, Columns). Pure.
 */
import { isColumnInWindow } from '../../model/index.js';
import { COLUMNS_PER_PACKET } from '../packets/lidar-profiles.js';
import { correctCrc } from './lidar-header.js';
import { blankColumn, measurementIdAt, type RecordedLayout } from './recorded-layout.js';

/** `b` limited to `window`; the same buffer when every column is inside, null when none is. */
export function applyColumnWindow(
  b: Buffer,
  layout: RecordedLayout,
  pixels: number,
  window: readonly [number, number],
): Buffer | null {
  const outside: number[] = [];
  for (let c = 0; c < COLUMNS_PER_PACKET; c++) {
    if (!isColumnInWindow(measurementIdAt(b, layout, pixels, c), window)) outside.push(c);
  }
  if (outside.length === 0) return b;
  if (outside.length === COLUMNS_PER_PACKET) return null;
  const out = Buffer.from(b);
  for (const c of outside) blankColumn(out, layout, pixels, c);
  if (layout.header === 'STANDARD') correctCrc(b, out);
  return out;
}

/** Whether every column of `inner` lies in `outer` (frames of `cpf` columns). */
export function windowWithin(inner: readonly [number, number], outer: readonly [number, number], cpf: number): boolean {
  for (let m = inner[0]; ; m = (m + 1) % cpf) {
    if (!isColumnInWindow(m, outer)) return false;
    if (m === inner[1]) return true;
  }
}
