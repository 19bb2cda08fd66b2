/**
 * How a replaying unit (`lidar-sensor --replay`) says that it replays: a member of its OpenAPI document's `info`
 * (`GET /api/v1/openapi.json`). An OpenAPI extension (`x-` prefixed) in a document that is this project's own, not a
 * response shape of the sensor interface: a real unit serves no such member, so a client cannot take a real unit for
 * a replay by accident (docs/validate.md#against-a-replaying-unit). `lidar-sensor validate` reads it to skip,
 * with the reason, the checks a replay cannot meet.
 */
export const REPLAY_EXTENSION = 'x-lidar-sensor-replay';

export interface ReplayAnnouncement {
  /** The capture's file name. */
  recording: string;
  /** The packets the recording holds per stream: 0 means the replay sends none of that stream. */
  packets: { lidar: number; imu: number; zone: number };
  /** The recording's frames: whole ones, partial ones and the frame ids missing between them (replayed as recorded). */
  frames: { complete: number; partial: number; missing: number };
}
