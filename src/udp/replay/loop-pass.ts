/**
 * How far each pass of `--replay-loop` moves the replayed part of a recording on (docs/replay.md, Looping). A
 * recording of frames (lidar packets, or zone packets alone) at a known lidar_mode moves by whole frames: frame ids by
 * the frames the part spans and every timestamp by as many frame periods, so timestamps keep fitting their frame ids
 * across the join. IMU packets are not framed: a recording may hold one at each end of its frames' time (at 0.9 s and
 * at 1.2 s for frames from 0.9 s to 1.2 s), and the next pass would repeat the first one's time; later passes leave
 * such packets out, so that IMU timestamps keep increasing. Pure.
 */
import { IMU_PACKET_BYTES } from '../packets/imu-packet.js';
import { firstImuNmeaTimestamp } from '../packets/imu-nmea-packet.js';
import { frameIdModulus } from './lidar-header.js';
import type { Recording } from './recording.js';
import { frameSpan } from './recording-frames.js';

export interface LoopPass {
  /** Frame ids one pass moves on by; 0 without frames. */
  frames: number;
  /** frames × the frame period, ns; null without frames or a known frame period. */
  frameTimeNs: number | null;
  /** Indices of the IMU packets that passes after the first leave out: moved on, they would not follow the last. */
  repeated: ReadonlySet<number>;
}

/** An IMU packet's (first) timestamp: LEGACY sys_ts, ACCEL32_GYRO32_NMEA the first sample's; null for other sizes. */
const imuTimestamp = (b: Buffer) => (b.length === IMU_PACKET_BYTES ? b.readBigUInt64LE(0) : firstImuNmeaTimestamp(b));

function repeatedImu(packets: Recording['packets'], first: number, frameTimeNs: number | null): Set<number> {
  const repeated = new Set<number>();
  if (frameTimeNs === null) return repeated;
  const stamped = packets
    .map((p, index) => ({ index, ts: p.kind === 'imu' ? imuTimestamp(p.bytes) : null }))
    .filter((p): p is { index: number; ts: bigint } => p.index >= first && p.ts !== null);
  if (stamped.length === 0) return repeated;
  const last = stamped.reduce((max, p) => (p.ts > max ? p.ts : max), stamped[0].ts);
  for (const p of stamped) if (p.ts + BigInt(frameTimeNs) <= last) repeated.add(p.index);
  return repeated;
}

/** @param first index of the first packet replayed (`--replay-start`) */
export function loopPass(recording: Pick<Recording, 'packets' | 'layout' | 'framePeriodNs'>, first: number): LoopPass {
  const replayed = recording.packets.slice(first);
  const modulus = frameIdModulus(recording.layout);
  const frames =
    frameSpan(
      replayed.filter((p) => p.kind === 'lidar'),
      modulus,
    ) ||
    frameSpan(
      replayed.filter((p) => p.kind === 'zone'),
      modulus,
    );
  const period = recording.framePeriodNs;
  const frameTimeNs = frames > 0 && period !== null ? Math.round(frames * period) : null;
  return { frames, frameTimeNs, repeated: repeatedImu(recording.packets, first, frameTimeNs) };
}
