/**
 * Replaying firmware 3.2's data formats byte for byte: the simulator's sample of RNG15_RFL8_WIN8 lidar packets and
 * ACCEL32_GYRO32_NMEA IMU packets (test/fixtures/recordings/README.md), decoded with the independent decoders to
 * show it holds those formats, then sent as recorded; the replaying unit reports the recorded formats.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/poll.js';
import { decodeImuNmeaPacket, nmeaChecksumValid } from '../udp/decoder/imu-nmea-decoder.js';
import { decodeLidarPacket } from '../udp/decoder/lidar-decoder.js';
import { RECORDINGS, readReferencePcap } from './helpers/pcap-reference.js';
import { replayUnit } from './helpers/replay-unit.js';

const SIM_FORMATS = `${RECORDINGS}sim_OS-1-32_v3.2.0_512x10_win8_accel32`;
const hex = (b: Buffer) => b.toString('hex');

describe('replaying the simulator sample of RNG15_RFL8_WIN8 and ACCEL32_GYRO32_NMEA', () => {
  const metadata = JSON.parse(readFileSync(`${SIM_FORMATS}.json`, 'utf8'));
  const ports = metadata.config_params;
  const reference = readReferencePcap(`${SIM_FORMATS}.pcap`);
  const lidar = reference.filter((d) => d.dstPort === ports.udp_port_lidar).map((d) => d.payload);
  const imu = reference.filter((d) => d.dstPort === ports.udp_port_imu).map((d) => d.payload);

  it('holds what its metadata says: WIN8 packets with a clean window, 8-sample IMU packets with valid CRCs', () => {
    expect(metadata.lidar_data_format).toMatchObject({ udp_profile_lidar: 'RNG15_RFL8_WIN8', header_type: 'STANDARD' });
    expect(metadata.imu_data_format).toMatchObject({ imu_measurements_per_packet: 8, imu_packets_per_frame: 8 });
    expect(lidar).toHaveLength(96);
    for (const b of lidar) {
      const p = decodeLidarPacket(b, 'RNG15_RFL8_WIN8', 32);
      expect(p.footerOk).toBe(true);
      expect(p.columns.every((c) => c.pixels.every((px) => px.window === 0))).toBe(true);
    }
    expect(imu.length).toBeGreaterThanOrEqual(16);
    for (const b of imu) {
      const p = decodeImuNmeaPacket(b);
      expect([p.packetType, p.footerOk, p.measurements.length]).toEqual([2, true, 8]);
    }
  });

  it('sends every lidar and IMU datagram byte for byte and reports the recorded formats', async () => {
    const u = await replayUnit(SIM_FORMATS);
    await u.listen();
    await waitFor(() => u.lidar.count >= lidar.length && u.imu.count >= imu.length, 10_000, 'the whole recording');
    expect(u.lidar.datagrams.map((d) => hex(d.data))).toEqual(lidar.map(hex));
    expect(u.imu.datagrams.map((d) => hex(d.data))).toEqual(imu.map(hex));
    const served = await u.getJson('/api/v1/sensor/metadata');
    expect(served.lidar_data_format.udp_profile_lidar).toBe('RNG15_RFL8_WIN8');
    expect(served.config_params.udp_profile_imu).toBe('ACCEL32_GYRO32_NMEA');
  });

  // The recording's IMU packets are sent as recorded, 8 to a frame: a unit that took another imu_packets_per_frame
  // would report a format its packets do not have.
  it('refuses to change imu_packets_per_frame (409) and keeps reporting the recorded 8', async () => {
    const u = await replayUnit(SIM_FORMATS);
    const change = await u.post({ imu_packets_per_frame: 4 });
    expect(change.status).toBe(409);
    expect(((await change.json()) as { detail: string }).detail).toMatch(/^imu_packets_per_frame cannot change/);
    expect((await u.getJson('/api/v1/sensor/metadata/imu_data_format')).imu_packets_per_frame).toBe(8);
    expect((await u.getJson('/api/v1/sensor/config')).imu_packets_per_frame).toBe(8);
  });
});

// The simulated GNSS receiver sends once a second, so a 0.3 s capture taken anywhere mostly holds no sentence:
// scripts/record-zone-fixture.ts keeps the frames around one (test/fixtures/recordings/README.md).
describe("the simulator's ACCEL32_GYRO32_NMEA samples hold a GNSS sentence", () => {
  it.each([
    ['sim_OS-1-32_v3.2.0_512x10_win8_accel32', 'STANDARD'],
    ['sim_OS-1-32_v3.2.0_512x10_fusa_zone16', 'FUSA'],
  ] as const)(
    '%s: one IMU packet carries an RMC sentence with a valid checksum, in the middle frame',
    (name, header) => {
      const metadata = JSON.parse(readFileSync(`${RECORDINGS}${name}.json`, 'utf8'));
      const imu = readReferencePcap(`${RECORDINGS}${name}.pcap`)
        .filter((d) => d.dstPort === metadata.config_params.udp_port_imu)
        .map((d) => decodeImuNmeaPacket(d.payload, header));
      expect(imu).toHaveLength(24);
      const withSentence = imu.filter((p) => p.nmeaTimestamp !== 0n);
      expect(withSentence).toHaveLength(1);
      const [packet] = withSentence;
      expect(packet.nmea).toMatch(/^\$GPRMC,\d{6}\.00,A,\d{4}\.\d{5},[NS],\d{5}\.\d{5},[EW],/);
      expect(nmeaChecksumValid(packet.nmea)).toBe(true);
      expect(packet.nmeaPaddingZero).toBe(true);
      // Whole frames around it: the frame before and the frame after were recorded too.
      const frames = [...new Set(imu.map((p) => p.frameId))];
      expect(frames.indexOf(packet.frameId)).toBe(1);
      // Every other packet's block is all zero (no sentence arrived then).
      for (const p of imu.filter((x) => x !== packet)) expect([p.nmea, p.nmeaPaddingZero]).toEqual(['', true]);
    },
  );
});

describe('looping a recording with ACCEL32_GYRO32_NMEA IMU packets', () => {
  it('moves them on with the lidar frames: frame ids count on, sample timestamps move by whole passes, the CRC stays valid', async () => {
    const metadata = JSON.parse(readFileSync(`${SIM_FORMATS}.json`, 'utf8'));
    const recorded = readReferencePcap(`${SIM_FORMATS}.pcap`).filter(
      (d) => d.dstPort === metadata.config_params.udp_port_imu,
    );
    const u = await replayUnit(SIM_FORMATS, ['--replay-loop', '--replay-rate', '4']);
    await u.listen();
    await waitFor(() => u.imu.count >= recorded.length * 3, 15_000, 'three passes of IMU packets');
    const got = u.imu.datagrams.slice(0, recorded.length * 3).map((d) => decodeImuNmeaPacket(d.data));
    expect(u.imu.datagrams.slice(0, recorded.length).map((d) => hex(d.data))).toEqual(
      recorded.map((d) => hex(d.payload)),
    );
    for (let i = 1; i < got.length; i++) {
      const step = (got[i].frameId - got[i - 1].frameId + 0x10000) & 0xffff;
      expect(step, `frame id step before IMU packet ${i}`).toBeLessThanOrEqual(1);
      expect(got[i].footerOk, `CRC of IMU packet ${i}`).toBe(true);
    }
    // A later pass is the recording moved on by whole passes: every sample by one and the same time, the same ids
    // and values.
    const n = recorded.length;
    const delta = got[n].measurements[0].timestamp - got[0].measurements[0].timestamp;
    expect(delta).toBeGreaterThan(0n);
    for (let i = 0; i < n; i++) {
      const [now, then] = [got[n + i].measurements, got[i].measurements];
      expect(now.map((m) => m.timestamp - delta)).toEqual(then.map((m) => m.timestamp));
      expect(now.map((m) => m.measurementId)).toEqual(then.map((m) => m.measurementId));
      expect(now.map((m) => m.accel)).toEqual(then.map((m) => m.accel));
    }
  });
});
