/**
 * The lidar packets as a sequence: none missing, none twice, in order, frame ids stepping as the profile's
 * header width says.
 */
import { type CheckRun, expectThat } from './check-run.js';
import type { LidarCapture } from './lidar-capture.js';
import type { LidarPacket } from './packet-decoder.js';
import { skipOnRecordedGaps } from './replay-signal.js';

export async function lidarSequenceChecks(run: CheckRun, lidar: LidarCapture): Promise<void> {
  const { layout, packets, perPacket, title, width } = lidar;
  const sequence = walkSequence(packets, width, perPacket, layout.header === 'fusa', frameStartSlot(lidar));
  await run.check(
    'udp.lidar.no-gaps',
    title('no packet missing: frame and measurement ids continue without gaps'),
    () => {
      skipOnRecordedGaps(lidar.unit.replay);
      expectThat(sequence.missing === 0, `${sequence.missing} packets missing (first gap: ${sequence.firstGap})`);
    },
  );
  await run.check('udp.lidar.no-duplicates', title('no packet arrives twice'), () =>
    expectThat(
      sequence.duplicates === 0,
      `${sequence.duplicates} duplicated packets (first: ${sequence.firstDuplicate})`,
    ),
  );
  await run.check('udp.lidar.in-order', title('packets arrive in order (frame_id, then measurement_id)'), () =>
    expectThat(
      sequence.reordered === 0,
      `${sequence.reordered} packets out of order (first: ${sequence.firstReorder})`,
    ),
  );
  await run.check(
    'udp.lidar.frame-id',
    title(
      layout.header === 'fusa'
        ? 'frame_id (u32) strictly increases from frame to frame'
        : 'frame_id increases by one per frame (u16, wrapping)',
    ),
    () => {
      skipOnRecordedGaps(lidar.unit.replay);
      expectThat(
        sequence.frameJumps === 0,
        `${sequence.frameJumps} frame id jumps (first: ${sequence.firstFrameJump})`,
      );
    },
  );
}

/**
 * The packet a frame starts with (firmware 3.2's lidar_frame_azimuth_offset, 0 before it): the one holding the column
 * at that azimuth, measurement id m lying at (1 − m / width) turns as azimuth_window counts.
 */
function frameStartSlot({ unit, width, perPacket }: LidarCapture): number {
  const offsetMdeg = Number(unit.config.lidar_frame_azimuth_offset ?? 0);
  const column = Math.floor(((360_000 - offsetMdeg) * width) / 360_000) % width;
  return Math.floor(column / perPacket);
}

interface Sequence {
  missing: number;
  duplicates: number;
  reordered: number;
  frameJumps: number;
  firstGap?: string;
  firstDuplicate?: string;
  firstReorder?: string;
  firstFrameJump?: string;
}

/**
 * Walks the packets in arrival order on one line of positions (frame × packets per frame + index):
 * a step back is a reordering, a position seen before a duplicate, a step over missing positions a
 * loss. Frames whose packets never arrive at all are whole-frame gaps and frame id jumps.
 */
function walkSequence(
  packets: LidarPacket[],
  width: number,
  perPacket: number,
  u32Frames: boolean,
  startSlot: number,
): Sequence {
  const result: Sequence = { missing: 0, duplicates: 0, reordered: 0, frameJumps: 0 };
  const slots = width / perPacket;
  /** A packet's place in its frame, counted from the frame's first packet. */
  const slotOf = (p: LidarPacket) => (p.columns[0].measurementId / perPacket - startSlot + slots) % slots;
  // Packets outside the window may not be sent at all: each frame's first and last slot are learnt from the capture.
  const indexes = packets.map(slotOf);
  const firstSlot = Math.min(...indexes);
  const lastSlot = Math.max(...indexes);
  const seen = new Set<number>();
  let frameBase = 0;
  let previousFrame: number | undefined;
  let highest = -1;
  const wrap = u32Frames ? 2 ** 32 : 2 ** 16;
  const where = (p: LidarPacket) => `frame ${p.frameId} measurement_id ${p.columns[0].measurementId}`;
  for (const p of packets) {
    if (previousFrame !== undefined) {
      const step = (p.frameId - previousFrame + wrap) % wrap;
      // A step over half the id space is a frame from the past (reordered across a frame boundary).
      frameBase += step < wrap / 2 ? step : step - wrap;
    }
    previousFrame = p.frameId;
    const position = frameBase * slots + slotOf(p);
    if (seen.has(position)) {
      result.duplicates++;
      result.firstDuplicate ??= where(p);
      continue;
    }
    seen.add(position);
    if (highest >= 0 && position < highest) {
      result.reordered++;
      result.firstReorder ??= where(p);
      result.missing--; // it was counted missing when the sequence stepped over it
      continue;
    }
    if (highest >= 0) {
      const frameOf = (pos: number) => Math.floor(pos / slots);
      const expectedNext = highest % slots === lastSlot ? (frameOf(highest) + 1) * slots + firstSlot : highest + 1;
      if (position > expectedNext) {
        const frames = frameOf(position) - frameOf(highest);
        const skipped =
          frames === 0
            ? position - expectedNext
            : lastSlot - (highest % slots) + (frames - 1) * (lastSlot - firstSlot + 1) + (position % slots) - firstSlot;
        result.missing += skipped;
        result.firstGap ??= `${skipped} before ${where(p)}`;
      }
      if (frameOf(position) > frameOf(highest) + 1) {
        result.frameJumps++;
        result.firstFrameJump ??= `to ${p.frameId}`;
      }
    }
    highest = position;
  }
  return result;
}
