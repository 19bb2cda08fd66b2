/**
 * The ACCEL32_GYRO32_NMEA IMU stream follows lidar_frame_azimuth_offset as the lidar frames do. The vendor SDK's
 * frame batcher (ouster_core/src/lidar_frame.cpp, FrameBatcher) puts a frame together from the lidar, IMU and zone
 * packets of one frame id, and files an IMU packet in slot `first measurement id / (columns / imu_packets_per_frame)`.
 * So the IMU packets of frame F must hold the samples taken while the lidar frame F was measured: from the frame's
 * first column (the offset's) on through the last and 0, each sample at the time the lidar column of its
 * measurement id has in that frame. Both streams at once, decoded with the independent decoders, on loopback.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { EmitterStreams } from '../../src/hal/emitter-streams.js';
import { waitFor } from '../helpers/poll.js';
import { decodeImuNmeaPacket, type DecodedImuNmeaPacket } from './decoder/imu-nmea-decoder.js';
import { decodeLidarPacket } from './decoder/lidar-decoder.js';
import { planOf } from './helpers/plan-of.js';
import { RecordingAlerts } from './helpers/recording-alerts.js';
import { UdpCapture } from './helpers/udp-capture.js';

const streams = new EmitterStreams(new RecordingAlerts());
afterAll(() => streams.close());

const COLUMNS = 1024;
const IMU_PER_FRAME = 8;
const LIDAR_PER_FRAME = 64;
let initId = 0x50000;

/** Lidar and IMU packets of OS-1-32 at 1024x10 with `offset`, over at least three frames. */
async function bothStreams(offset: number) {
  const lidar = await UdpCapture.listen();
  const imu = await UdpCapture.listen();
  try {
    const plan = planOf(
      {
        lidar_mode: '1024x10',
        udp_port_lidar: lidar.port,
        udp_port_imu: imu.port,
        udp_profile_imu: 'ACCEL32_GYRO32_NMEA',
        imu_packets_per_frame: IMU_PER_FRAME,
        lidar_frame_azimuth_offset: offset,
      },
      { initId: ++initId },
    );
    await streams.apply(plan);
    await waitFor(
      () => imu.count >= 3 * IMU_PER_FRAME + 1 && lidar.count >= 3 * LIDAR_PER_FRAME + 1,
      20_000,
      'three frames of lidar and IMU packets',
    );
    await streams.apply(null);
    const columnTimes = new Map<string, bigint>();
    for (const d of lidar.datagrams) {
      const p = decodeLidarPacket(d.data, 'RNG19_RFL8_SIG16_NIR16', 32);
      for (const c of p.columns) columnTimes.set(`${p.frameId}/${c.measurementId}`, c.timestamp);
    }
    const imuFrames = new Map<number, DecodedImuNmeaPacket[]>();
    for (const d of imu.datagrams) {
      const p = decodeImuNmeaPacket(d.data);
      imuFrames.set(p.frameId, [...(imuFrames.get(p.frameId) ?? []), p]);
    }
    return { columnTimes, imuFrames: [...imuFrames.values()].filter((f) => f.length === IMU_PER_FRAME) };
  } finally {
    await lidar.close();
    await imu.close();
  }
}

describe('ACCEL32_GYRO32_NMEA with lidar_frame_azimuth_offset', () => {
  it.each([
    [0, 0],
    [90_000, 768],
    // 100° is column 739.6: the lidar frame starts with the packet holding it (columns 736-751).
    [100_000, 736],
  ])(
    "%i mdeg: the IMU packets of a frame hold its samples from column %i on, at its columns' times",
    async (offset, first) => {
      const { columnTimes, imuFrames } = await bothStreams(offset);
      expect(imuFrames.length).toBeGreaterThanOrEqual(2);
      const stride = COLUMNS / (IMU_PER_FRAME * 8);
      let matched = 0;
      for (const packets of imuFrames) {
        const frameId = packets[0].frameId;
        const samples = packets.flatMap((p) => p.measurements);
        // The samples stay on their columns (the last of each stride), taken in the frame's order from its first column.
        const firstSample = Math.ceil((first + 1) / stride) * stride - 1;
        expect(samples.map((m) => m.measurementId)).toEqual(
          Array.from({ length: samples.length }, (_, n) => (firstSample + n * stride) % COLUMNS),
        );
        // The SDK's batcher files each packet in its own slot: no slot taken twice, none left empty.
        const slots = packets.map((p) => Math.floor(p.measurements[0].measurementId / (COLUMNS / IMU_PER_FRAME)));
        expect([...slots].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
        for (let k = 1; k < samples.length; k++) expect(samples[k].timestamp).toBeGreaterThan(samples[k - 1].timestamp);
        // Each sample at the time the lidar frame of the same id measured that column.
        for (const m of samples) {
          const lidarTime = columnTimes.get(`${frameId}/${m.measurementId}`);
          if (lidarTime === undefined) continue;
          expect(m.timestamp, `frame ${frameId} column ${m.measurementId}`).toBe(lidarTime);
          matched++;
        }
      }
      // At least one whole IMU frame lined up with a captured lidar frame.
      expect(matched).toBeGreaterThanOrEqual(IMU_PER_FRAME * 8);
    },
  );
});
