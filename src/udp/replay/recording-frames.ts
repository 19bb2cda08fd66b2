/**
 * The frames of a recording's lidar packets: their measurement ids checked against the metadata's columns
 * per frame, and the frames counted (complete, partial, missing ids between them) for its report.
 */
import { COLUMNS_PER_PACKET } from '../packets/lidar-profiles.js';
import { frameIdModulus, readLidarHeader } from './lidar-header.js';
import type { RecordedLayout } from './recorded-layout.js';
import { RecordingError } from './recording-error.js';

/** What the frame accounting reads of a recorded packet. */
interface FramedPacket {
  bytes: Buffer;
  frameId: number | null;
  wellFormed: boolean;
}

export function checkColumns(file: string, cpf: number, layout: RecordedLayout, lidar: readonly FramedPacket[]) {
  for (const p of lidar) {
    if (!p.wellFormed) continue;
    const m = readLidarHeader(p.bytes, layout).firstMeasurementId;
    if (m >= cpf)
      throw new RecordingError(
        `${file}: a packet holds measurement id ${m} but the metadata has ${cpf} columns per frame`,
      );
  }
}

/** Frame ids the packets span, first to last (modulo the id's width); 0 without any. */
export function frameSpan(packets: readonly FramedPacket[], modulus: number): number {
  const ids = packets.map((p) => p.frameId).filter((id): id is number => id !== null);
  return ids.length ? ((ids[ids.length - 1] - ids[0] + modulus) % modulus) + 1 : 0;
}

export function frameStats(
  lidar: readonly FramedPacket[],
  layout: RecordedLayout,
  cpf: number,
  window: [number, number],
) {
  const modulus = frameIdModulus(layout);
  const packetsPerFrame = packetsInWindow(cpf, window);
  let frames = 0;
  let complete = 0;
  let missing = 0;
  let current: number | null = null;
  let count = 0;
  let first: number | null = null;
  let span = 0;
  for (const p of lidar) {
    if (p.frameId === null) continue;
    first ??= p.frameId;
    span = ((p.frameId - first + modulus) % modulus) + 1;
    if (p.frameId === current) {
      count++;
      continue;
    }
    if (current !== null) {
      if (count >= packetsPerFrame) complete++;
      const step = (p.frameId - current + modulus) % modulus;
      if (step > 1) missing += step - 1;
    }
    frames++;
    current = p.frameId;
    count = 1;
  }
  if (current !== null && count >= packetsPerFrame) complete++;
  return { frames, complete, missing, span };
}

function packetsInWindow(cpf: number, [first, last]: [number, number]): number {
  let n = 0;
  for (let index = 0; index < cpf / COLUMNS_PER_PACKET; index++) {
    for (let i = 0; i < COLUMNS_PER_PACKET; i++) {
      const m = index * COLUMNS_PER_PACKET + i;
      if (first <= last ? m >= first && m <= last : m >= first || m <= last) {
        n++;
        break;
      }
    }
  }
  return n;
}
