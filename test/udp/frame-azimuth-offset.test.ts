/**
 * lidar_frame_azimuth_offset (firmware 3.2): each frame starts at that azimuth. Measurement ids keep their
 * azimuth (measurement id m is at azimuth (1 - m / columns) turns, as azimuth_window counts), so a frame's
 * first packet is the one holding the offset's column and its ids run on through the last column and 0.
 * Decoded with the independent decoder, on real loopback sockets.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { EmitterStreams } from '../../src/hal/emitter-streams.js';
import { capturedFrames } from './helpers/captured-frames.js';
import { RecordingAlerts } from './helpers/recording-alerts.js';

const streams = new EmitterStreams(new RecordingAlerts());
afterAll(() => streams.close());

/** Whole frames of OS-1-32 at 1024x10 (64 packets) with `offset`. */
const framesWith = (offset: number) =>
  capturedFrames(streams, { lidar_mode: '1024x10', lidar_frame_azimuth_offset: offset }, 64);

describe('lidar_frame_azimuth_offset', () => {
  it.each([
    [0, 0],
    [90_000, 768],
    [180_000, 512],
    // 100° is column 739.6: the frame starts with the packet holding it (columns 736-751).
    [100_000, 736],
  ])('%i mdeg: every frame starts with measurement id %i and runs on through 0', async (offset, first) => {
    const frames = await framesWith(offset);
    expect(frames.length).toBeGreaterThanOrEqual(2);
    for (const packets of frames) {
      const ids = packets.flatMap((p) => p.columns.map((c) => c.measurementId));
      expect(ids[0]).toBe(first);
      expect(ids).toEqual(Array.from({ length: 1024 }, (_, k) => (first + k) % 1024));
      // Column timestamps count from the frame's start in the frame's own order.
      const times = packets.flatMap((p) => p.columns.map((c) => c.timestamp));
      for (let k = 1; k < times.length; k++) expect(times[k]).toBeGreaterThan(times[k - 1]);
      const start = times[0];
      expect(times[1023] - start).toBe(BigInt(Math.floor((1023 * 1e8) / 1024)));
    }
  });
});
