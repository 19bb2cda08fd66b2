/**
 * A unit that replays a recording (`lidar-sensor --replay`) sends what was recorded: the recorded
 * initialization_id, timestamps, alert flags, gaps and streams, and it refuses to change what was measured
 * (lidar_mode). The checks of those SKIP on such a unit, saying why; everything else is checked as on any unit.
 *
 * The unit is told apart only by what it states explicitly: the `x-lidar-sensor-replay` member of the `info` of
 * the OpenAPI document it serves (src/model/replay-announcement.ts). Not by guessing from a refusal's wording or a
 * kept initialization_id: a real unit that failed to reinitialize would then be excused instead of failing. A real
 * unit serves no such member (and when it serves no document at all, the validator's own, which carries none, is
 * used), so it is never taken for a replay by accident.
 */
import { REPLAY_EXTENSION, type ReplayAnnouncement } from '../model/index.js';
import { SkipCheck } from './check-run.js';

export type Replay = ReplayAnnouncement;

const isCount = (value: unknown) => Number.isInteger(value) && (value as number) >= 0;

/** The replay a unit's own OpenAPI document announces, or undefined (also for a member of another shape). */
export function announcedReplay(document: { info?: unknown }): Replay | undefined {
  const info = document.info as Record<string, unknown> | undefined;
  const replay = info?.[REPLAY_EXTENSION] as Replay | undefined;
  if (typeof replay?.recording !== 'string') return undefined;
  const { packets, frames } = replay;
  const counts = [packets?.lidar, packets?.imu, packets?.zone, frames?.complete, frames?.partial, frames?.missing];
  return counts.every(isCount) ? replay : undefined;
}

/** Skips a check of timestamps (clock, frame rate, order across packets): a replay's are the recording's. */
export function skipRecordedTimestamps(replay: Replay | undefined): void {
  skipWhenReplaying(
    replay,
    "the packets carry the recording's timestamps (moved on by one pass per loop), not this unit's clock",
  );
}

/** Skips a check of the IMU packet rate: a replay sends the recording's at the recorded times. */
export function skipRecordedImuRate(replay: Replay | undefined): void {
  skipWhenReplaying(replay, "the IMU packets are the recording's, sent at the recorded times (× --replay-rate)");
}

/** Skips the running check on a replaying unit, with `why` a replay cannot meet it. */
export function skipWhenReplaying(replay: Replay | undefined, why: string): void {
  if (replay) throw new SkipCheck(`replaying ${replay.recording}: ${why}`);
}

/** Skips the running check when nothing arrived from a replay of a recording without IMU packets. */
export function skipUnrecordedImu(arrived: number, replay: Replay | undefined): void {
  if (arrived === 0 && replay?.packets.imu === 0) skipWhenReplaying(replay, 'the recording holds no IMU packet');
}

/**
 * Skips the running check when the replayed recording is not one clean stream (partial frames, frame ids missing
 * between frames): those gaps are sent as recorded, pass after pass. A recording of whole frames is checked.
 */
export function skipOnRecordedGaps(replay: Replay | undefined): void {
  if (!replay || (replay.frames.partial === 0 && replay.frames.missing === 0)) return;
  skipWhenReplaying(
    replay,
    `the recording holds ${replay.frames.partial} partial frames and ${replay.frames.missing} missing frame ids, sent as recorded`,
  );
}
