/**
 * A unit started with --replay, seen from outside: what it sends (captured on loopback and compared
 * with the test's own reading of the pcap), what metadata it serves, how it answers configuration.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { crc64xz } from '../udp/decoder/crc64-xz.js';
import { decodeLidarPacket } from '../udp/decoder/lidar-decoder.js';
import { OS0_CRC, OS1_FUSA, readReferencePcap } from './helpers/pcap-reference.js';
import { replayUnit, type Json } from './helpers/replay-unit.js';
import { waitFor } from '../helpers/poll.js';

const hex = (b: Buffer) => b.toString('hex');

describe.each([
  ['OS-0-128 RNG15 with CRC', OS0_CRC],
  ['OS-1-128 FUSA dual', OS1_FUSA],
])('replaying %s', (_name, base) => {
  const reference = readReferencePcap(`${base}.pcap`);
  const recordedLidar = reference.filter((d) => d.dstPort === 7502).map((d) => hex(d.payload));
  const recordedImu = reference.filter((d) => d.dstPort === 7503).map((d) => hex(d.payload));
  const metadata = JSON.parse(readFileSync(`${base}.json`, 'utf8'));

  it('sends every recorded datagram byte for byte, in order, from the listen address; again after reinit', async () => {
    const u = await replayUnit(base);
    await u.listen();
    await waitFor(
      () => u.lidar.count >= recordedLidar.length && u.imu.count >= recordedImu.length,
      10_000,
      'the whole recording',
    );
    expect(u.lidar.datagrams.map((d) => hex(d.data))).toEqual(recordedLidar);
    expect(u.imu.datagrams.map((d) => hex(d.data))).toEqual(recordedImu);
    expect(new Set(u.lidar.datagrams.map((d) => d.from.address))).toEqual(new Set(['127.0.0.1']));

    // A reinit (another IMU port) starts the recording from its beginning, byte-exact again.
    const imu2 = await u.capture();
    const res = await u.post({ udp_port_imu: imu2.port });
    expect(res.status).toBe(204);
    await waitFor(() => imu2.count >= recordedImu.length, 10_000, 'the IMU packets after the reinit');
    expect(imu2.datagrams.map((d) => hex(d.data))).toEqual(recordedImu);
  });

  it("serves the recording's metadata; initialization_id stays the recorded one across reinits", async () => {
    const u = await replayUnit(base);
    await u.listen();
    const served = await u.getJson('/api/v1/sensor/metadata');
    const { status: _status, ...info } = served.sensor_info;
    const { status: _recordedStatus, ...recordedInfo } = metadata.sensor_info;
    expect(info).toEqual(recordedInfo);
    expect(served.sensor_info.status).toBe('RUNNING');
    expect(served.beam_intrinsics).toEqual(metadata.beam_intrinsics);
    expect(served.imu_intrinsics).toEqual(metadata.imu_intrinsics);
    expect(served.lidar_intrinsics).toEqual(metadata.lidar_intrinsics);
    expect(served.calibration_status).toEqual(metadata.calibration_status);
    // Members firmware 3.2.0 added (fps, header_type) are served beside those of a pre-release recording that lacks them.
    for (const [key, value] of Object.entries(served.lidar_data_format))
      if (key in metadata.lidar_data_format || !['fps', 'header_type'].includes(key))
        expect(value, key).toEqual(metadata.lidar_data_format[key]);
    for (const [key, value] of Object.entries(metadata.config_params)) {
      if (['udp_dest', 'udp_port_lidar', 'udp_port_imu'].includes(key)) continue; // the test's own destination
      expect(served.config_params[key], key).toEqual(value);
    }
    expect((await u.post({ udp_port_imu: 0 })).status).toBe(204);
    expect((await u.getJson('/api/v1/sensor/metadata')).sensor_info.initialization_id).toBe(
      metadata.sensor_info.initialization_id,
    );
  });
});

describe('replay options and configuration', () => {
  it('--replay-loop keeps frame ids and timestamps increasing with valid CRCs; the first pass is exact', async () => {
    const reference = readReferencePcap(`${OS0_CRC}.pcap`).filter((d) => d.dstPort === 7502);
    const u = await replayUnit(OS0_CRC, ['--replay-loop', '--replay-rate', '4']);
    await u.listen();
    await waitFor(() => u.lidar.count >= reference.length * 3, 15_000, 'three passes');
    const got = u.lidar.datagrams.slice(0, reference.length * 3).map((d) => d.data);
    expect(got.slice(0, reference.length).map(hex)).toEqual(reference.map((d) => hex(d.payload)));
    const packets = got.map((b) => decodeLidarPacket(b, 'RNG15_RFL8_NIR8', 128));
    for (const [i, p] of packets.entries()) {
      expect(p.footerOk, `CRC of packet ${i}`).toBe(true);
      expect(crc64xz(got[i], 0, got[i].length - 8)).toBe(got[i].readBigUInt64LE(got[i].length - 8));
    }
    for (let i = 1; i < packets.length; i++) {
      expect(packets[i].frameId).toBeGreaterThanOrEqual(packets[i - 1].frameId);
      expect(packets[i].columns[0].timestamp).toBeGreaterThan(packets[i - 1].columns[0].timestamp);
    }
    // Each pass continues the frame ids of the one before.
    const firstOfPass = [0, 1, 2].map((k) => packets[k * reference.length].frameId);
    expect(firstOfPass[1]).toBeGreaterThan(packets[reference.length - 1].frameId);
    expect(firstOfPass[2] - firstOfPass[1]).toBe(firstOfPass[1] - firstOfPass[0]);
  });

  it('re-encodes the FUSA recording as RNG19: range and reflectivity equal the recorded ones pixel for pixel', async () => {
    const reference = readReferencePcap(`${OS1_FUSA}.pcap`).filter((d) => d.dstPort === 7502);
    const u = await replayUnit(OS1_FUSA);
    await u.listen({ udp_profile_lidar: 'RNG19_RFL8_SIG16_NIR16' });
    await waitFor(() => u.lidar.count >= reference.length, 10_000, 'the re-encoded packets');
    expect((await u.getJson('/api/v1/sensor/metadata/lidar_data_format')).udp_profile_lidar).toBe(
      'RNG19_RFL8_SIG16_NIR16',
    );
    let compared = 0;
    for (const [i, d] of reference.entries()) {
      const recorded = decodeLidarPacket(d.payload, 'FUSA_RNG15_RFL8_NIR8_DUAL', 128);
      const served = decodeLidarPacket(u.lidar.datagrams[i].data, 'RNG19_RFL8_SIG16_NIR16', 128);
      expect(served.footerOk).toBe(true);
      expect([served.initId, served.serial, served.frameId]).toEqual([
        recorded.initId,
        recorded.serial,
        recorded.frameId,
      ]);
      for (const [c, column] of recorded.columns.entries()) {
        const out = served.columns[c];
        expect([out.timestamp, out.measurementId, out.status]).toEqual([
          column.timestamp,
          column.measurementId,
          column.status,
        ]);
        // RNG15 holds range in 8 mm steps, RNG19 in mm: the recorded value is exact in both.
        expect(out.pixels.map((p) => p.range)).toEqual(column.pixels.map((p) => p.range));
        expect(out.pixels.map((p) => p.reflectivity)).toEqual(column.pixels.map((p) => p.reflectivity));
        compared += column.pixels.filter((p) => p.range > 0).length;
      }
    }
    expect(compared).toBeGreaterThan(1000); // real returns were compared, not only empty pixels
  });

  it('a narrower azimuth_window blanks the columns outside it and drops packets wholly outside', async () => {
    const reference = readReferencePcap(`${OS0_CRC}.pcap`).filter((d) => d.dstPort === 7502);
    const u = await replayUnit(OS0_CRC);
    await u.listen({ azimuth_window: [0, 90000] });
    const window: [number, number] = (await u.getJson('/api/v1/sensor/metadata/lidar_data_format')).column_window;
    expect(window).not.toEqual([0, 511]);
    const inWindow = (m: number) =>
      window[0] <= window[1] ? m >= window[0] && m <= window[1] : m >= window[0] || m <= window[1];
    const expected = reference
      .map((d) => decodeLidarPacket(d.payload, 'RNG15_RFL8_NIR8', 128))
      .filter((p) => p.columns.some((c) => inWindow(c.measurementId)));
    expect(expected.length).toBeLessThan(reference.length);
    await waitFor(() => u.lidar.count >= expected.length, 10_000, 'the packets inside the window');
    const served = u.lidar.datagrams
      .slice(0, expected.length)
      .map((d) => decodeLidarPacket(d.data, 'RNG15_RFL8_NIR8', 128));
    for (const [i, p] of served.entries()) {
      expect(p.footerOk).toBe(true);
      expect(p.frameId).toBe(expected[i].frameId);
      for (const [c, column] of p.columns.entries()) {
        const recorded = expected[i].columns[c];
        expect(column.measurementId).toBe(recorded.measurementId);
        if (inWindow(column.measurementId)) expect(column).toEqual(recorded);
        else
          expect([column.status, column.pixels.every((px) => px.range === 0 && px.reflectivity === 0)]).toEqual([
            0,
            true,
          ]);
      }
    }
  });

  it('a change the recording cannot honour is a 409 that says why, and nothing changes', async () => {
    const u = await replayUnit(OS1_FUSA);
    await u.listen();
    const before = await u.getJson('/api/v1/sensor/config');
    for (const change of [
      { lidar_mode: '2048x10' },
      { return_order: 'FARTHEST_TO_NEAREST' },
      { accel_fsr: 'EXTENDED' },
    ]) {
      const res = await u.post({ ...change, udp_port_imu: 0 });
      expect(res.status).toBe(409);
      const problem = (await res.json()) as Json;
      expect(problem.detail).toContain(Object.keys(change)[0]);
      expect(problem.detail).toContain('cannot change while replaying');
    }
    expect(await u.getJson('/api/v1/sensor/config')).toEqual(before);
  });
});
