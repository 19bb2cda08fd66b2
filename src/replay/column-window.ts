/**
 * A narrower `azimuth_window` on recorded packets: columns outside the active column window get status 0
 * and zeroed channel data (timestamp and measurement id stay), packets wholly outside it are not sent,
 * as a live unit does (udp-packets.md, Column). Pure.
 */
import { isColumnInWindow } from '../model/lidar-geometry.js';
import {
  COLUMNS_PER_PACKET,
  COLUMN_HEADER_BYTES,
  PACKET_HEADER_BYTES,
  columnBytes,
  type ProfileLayout,
} from '../udp/lidar-profiles.js';
import { correctCrc } from './lidar-header.js';

/** `b` limited to `window`; the same buffer when every column is inside, null when none is. */
export function applyColumnWindow(
  b: Buffer,
  layout: ProfileLayout,
  pixels: number,
  window: readonly [number, number],
): Buffer | null {
  const colBytes = columnBytes(layout, pixels);
  const outside: number[] = [];
  for (let c = 0; c < COLUMNS_PER_PACKET; c++) {
    const m = b.readUInt16LE(PACKET_HEADER_BYTES + c * colBytes + 8);
    if (!isColumnInWindow(m, window)) outside.push(c);
  }
  if (outside.length === 0) return b;
  if (outside.length === COLUMNS_PER_PACKET) return null;
  const out = Buffer.from(b);
  for (const c of outside) {
    const o = PACKET_HEADER_BYTES + c * colBytes;
    out.writeUInt16LE(0, o + 10);
    out.fill(0, o + COLUMN_HEADER_BYTES, o + colBytes);
  }
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
