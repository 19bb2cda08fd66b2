/**
 * Assembles decoded lidar packets into frames as a client does: a frame is complete when every
 * measurement id of `column_window` has arrived with its status bit set.
 */
import type { DecodedColumn, DecodedLidarPacket } from './lidar-decoder.js';

export function windowColumns([first, last]: readonly [number, number], columnsPerFrame: number): number[] {
  const ids: number[] = [];
  for (let m = first; ; m = (m + 1) % columnsPerFrame) {
    ids.push(m);
    if (m === last) break;
  }
  return ids;
}

export interface AssembledFrame {
  frameId: number;
  initId: number;
  /** Columns by measurement id. */
  columns: Map<number, DecodedColumn>;
  packets: DecodedLidarPacket[];
}

export function isComplete(frame: AssembledFrame, window: readonly [number, number], columnsPerFrame: number): boolean {
  return windowColumns(window, columnsPerFrame).every((m) => (frame.columns.get(m)?.status ?? 0) & 1);
}

/** Groups packets by (init id, frame id), in arrival order. */
export function assembleFrames(packets: readonly DecodedLidarPacket[]): AssembledFrame[] {
  const frames: AssembledFrame[] = [];
  for (const p of packets) {
    let f = frames[frames.length - 1];
    if (!f || f.frameId !== p.frameId || f.initId !== p.initId) {
      f = { frameId: p.frameId, initId: p.initId, columns: new Map(), packets: [] };
      frames.push(f);
    }
    f.packets.push(p);
    for (const c of p.columns) f.columns.set(c.measurementId, c);
  }
  return frames;
}
