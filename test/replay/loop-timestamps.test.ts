/**
 * Looping the simulator's firmware 3.2 samples (three whole 512x10 frames each): every later pass moves frame ids on
 * by the frames a pass spans and every timestamp by as many frame periods, so a packet's timestamps fit its frame id
 * across the join and each stream's timestamps keep increasing. Decoded with the independent test decoders.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/poll.js';
import { decodeImuPacket } from '../udp/decoder/imu-decoder.js';
import { decodeImuNmeaPacket } from '../udp/decoder/imu-nmea-decoder.js';
import { decodeLidarPacket } from '../udp/decoder/lidar-decoder.js';
import type { Profile } from '../udp/decoder/formats.js';
import { ReplayStream } from '../../src/udp/worker/replay-stream.js';
import type { UdpTarget } from '../../src/udp/worker/udp-target.js';
import { RECORDINGS, readReferencePcap } from './helpers/pcap-reference.js';
import { replayUnit } from './helpers/replay-unit.js';

const PASSES = 3;

describe.each([
  ['sim_OS-1-32_v3.2.0_512x10_zone16', 'LEGACY IMU'],
  ['sim_OS-1-32_v3.2.0_512x10_win8_accel32', 'ACCEL32_GYRO32_NMEA IMU'],
  ['sim_OS-1-32_v3.2.0_512x10_fusa_zone16', 'ACCEL32_GYRO32_NMEA IMU, FUSA header'],
] as const)('looping %s (%s)', (name, _imu) => {
  const base = `${RECORDINGS}${name}`;
  const metadata = JSON.parse(readFileSync(`${base}.json`, 'utf8'));
  const ports = metadata.config_params;
  const format = metadata.lidar_data_format;
  const header: 'STANDARD' | 'FUSA' = format.header_type;
  const reference = readReferencePcap(`${base}.pcap`);
  const recordedLidar = reference.filter((d) => d.dstPort === ports.udp_port_lidar).map((d) => d.payload);
  const recordedImu = reference.filter((d) => d.dstPort === ports.udp_port_imu).map((d) => d.payload);
  const decodeLidar = (b: Buffer) =>
    decodeLidarPacket(b, format.udp_profile_lidar as Profile, format.pixels_per_column, header);
  const frameIdMask = header === 'FUSA' ? 0xffffffff : 0xffff;
  const legacyImu = ports.udp_profile_imu === 'LEGACY';
  // Whole frames: the recording's frame ids first to last, and the frame period of its lidar_mode (512x10: 100 ms).
  const recordedIds = recordedLidar.map((b) => decodeLidar(b).frameId);
  const framesPerPass = recordedIds[recordedIds.length - 1] - recordedIds[0] + 1;
  const framePeriodNs = BigInt(1e9 / Number(String(ports.lidar_mode).split('x')[1]));
  const passShiftNs = BigInt(framesPerPass) * framePeriodNs;
  const imuTimestamps = (b: Buffer) =>
    legacyImu
      ? [decodeImuPacket(b).sysTs, decodeImuPacket(b).accelTs, decodeImuPacket(b).gyroTs]
      : decodeImuNmeaPacket(b, header).measurements.map((m) => m.timestamp);

  it('holds whole frames: three frames of every packet of a 512x10 column window', () => {
    expect(framesPerPass).toBe(3);
    expect(recordedLidar).toHaveLength(3 * (512 / 16));
  });

  // A client that counts frames measures the sensor's rate: a pass lasts its frames, not the capture's span.
  it('sends each pass one frames per pass × frame period after the one before (fake clock)', () => {
    const clock = { now: 0 };
    const sentAt: number[] = [];
    const target = { send: () => sentAt.push(clock.now) } as unknown as UdpTarget;
    const stream = new ReplayStream(
      {
        file: `${base}.pcap`,
        metadataFile: `${base}.json`,
        ...{ rate: 1, loop: true, startOffsetNs: 0, profile: format.udp_profile_lidar, header },
        columnWindow: format.column_window,
      },
      { lidar: target, imu: null },
    );
    stream.begin(clock.now);
    while (sentAt.length < 2 * recordedLidar.length) {
      clock.now = stream.nextDueMs();
      stream.sendDue(clock.now);
    }
    const n = recordedLidar.length;
    for (let k = 0; k < n; k++) expect(sentAt[n + k] - sentAt[k]).toBeCloseTo(Number(passShiftNs) / 1e6, 6);
  });

  it('moves a pass by frames per pass × frame period: lidar columns fit their frame ids, IMU timestamps increase', async () => {
    const u = await replayUnit(base, ['--replay-loop', '--replay-rate', '4']);
    await u.listen();
    await waitFor(
      () => u.lidar.count >= PASSES * recordedLidar.length && u.imu.count >= PASSES * recordedImu.length,
      15_000,
      `${PASSES} passes`,
    );
    const lidar = u.lidar.datagrams.slice(0, PASSES * recordedLidar.length).map((d) => decodeLidar(d.data));
    for (const [i, got] of lidar.entries()) {
      const pass = Math.floor(i / recordedLidar.length);
      const recorded = decodeLidar(recordedLidar[i % recordedLidar.length]);
      expect(got.frameId, `frame id of lidar packet ${i}`).toBe(
        (recorded.frameId + pass * framesPerPass) & frameIdMask,
      );
      expect(
        got.columns.map((c) => c.timestamp - BigInt(pass) * passShiftNs),
        `column timestamps of lidar packet ${i} (pass ${pass})`,
      ).toEqual(recorded.columns.map((c) => c.timestamp));
    }

    // The IMU stream: each pass the recording's packets moved on by pass × the frame time; a later pass leaves out a
    // packet that would repeat the time of the pass before (the zone16 sample holds IMU packets at 0.9 s and 1.2 s).
    const expectedImu: bigint[][] = [];
    for (let pass = 0; pass < PASSES; pass++)
      for (const b of recordedImu) {
        const moved = imuTimestamps(b).map((t) => t + BigInt(pass) * passShiftNs);
        if (pass === 0 || moved[0] > expectedImu[expectedImu.length - 1][0]) expectedImu.push(moved);
      }
    expect(expectedImu.length).toBeGreaterThan((PASSES - 1) * recordedImu.length);
    await waitFor(() => u.imu.count >= expectedImu.length, 15_000, 'the IMU packets');
    const imu = u.imu.datagrams.slice(0, expectedImu.length).map((d) => imuTimestamps(d.data));
    for (const [i, got] of imu.entries()) expect(got, `IMU timestamps of packet ${i}`).toEqual(expectedImu[i]);
    // Each timestamp of the IMU stream (LEGACY: sys_ts, accel_ts, gyro_ts each; ACCEL32: every sample) increases.
    const streams = legacyImu ? [0, 1, 2].map((k) => imu.map((t) => t[k])) : [imu.flat()];
    for (const stream of streams)
      for (let i = 1; i < stream.length; i++)
        expect(stream[i] > stream[i - 1], `IMU timestamp ${i}: ${stream[i]} after ${stream[i - 1]}`).toBe(true);
  });
});
