/**
 * lidar_frame_azimuth_offset (firmware 3.2): each frame starts at that azimuth. Measurement ids keep their
 * azimuth (measurement id m is at azimuth (1 - m / columns) turns, as azimuth_window counts), so a frame's
 * first packet is the one holding the offset's column and its ids run on through the last column and 0.
 * Decoded with the independent decoder, on real loopback sockets.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/registry.js';
import type { SensorConfig } from '../../src/model/index.js';
import { EmitterStreams } from '../../src/hal/emitter-streams.js';
import { findProduct } from '../../src/model/products.js';
import { planStreams } from '../../src/udp/index.js';
import { waitFor } from '../helpers/poll.js';
import { decodeLidarPacket } from './decoder/lidar-decoder.js';
import { RecordingAlerts } from './helpers/recording-alerts.js';
import { UdpCapture } from './helpers/udp-capture.js';

const OFFSET_NS = BigInt(Date.now()) * 1_000_000n - process.hrtime.bigint();
const streams = new EmitterStreams(new RecordingAlerts());
const captures: UdpCapture[] = [];
afterAll(async () => {
  await streams.close();
  await Promise.all(captures.map((c) => c.close()));
});

let initId = 0x20000;

/** Packets of two whole frames of OS-1-32 at 1024x10 with `offset`, in arrival order, grouped by frame id. */
async function framesWith(offset: number) {
  const rx = await UdpCapture.listen();
  captures.push(rx);
  const config: SensorConfig = {
    ...defaultConfig(),
    udp_dest: '127.0.0.1',
    udp_port_lidar: rx.port,
    udp_port_imu: 0,
    lidar_mode: '1024x10',
    lidar_frame_azimuth_offset: offset,
  };
  const plan = planStreams(config, {
    initId: ++initId,
    product: findProduct('OS-1-32')!,
    serialNumber: 1n,
    bindAddress: undefined,
    timestampOffsetNs: OFFSET_NS,
  });
  await streams.apply(plan);
  await waitFor(() => rx.count >= 3 * 64 + 1, 20_000, 'three frames of packets');
  await streams.apply(null);
  const byFrame = new Map<number, ReturnType<typeof decodeLidarPacket>[]>();
  for (const d of rx.datagrams) {
    const p = decodeLidarPacket(d.data, 'RNG19_RFL8_SIG16_NIR16', 32);
    byFrame.set(p.frameId, [...(byFrame.get(p.frameId) ?? []), p]);
  }
  return [...byFrame.values()].filter((packets) => packets.length === 64);
}

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
