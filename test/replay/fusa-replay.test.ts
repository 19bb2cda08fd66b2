/**
 * Replaying a recording with firmware 3.2's FUSA header (header_type FUSA on RNG15_RFL8_NIR8_ZONE16): the
 * simulator's sample (test/fixtures/recordings/README.md) holds FUSA lidar, ACCEL32_GYRO32_NMEA IMU and zone
 * packets, decoded here with the vendor SDK's FUSA layout by the independent decoders. The replaying unit sends
 * them byte for byte and reports header_type FUSA; a copy of the sample moved to frame ids past 65,535 is read,
 * replayed and looped with its u32 frame ids.
 */
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRecording } from '../../src/udp/replay/recording.js';
import { waitFor } from '../helpers/poll.js';
import { decodeImuNmeaPacket } from '../udp/decoder/imu-nmea-decoder.js';
import { decodeLidarPacket } from '../udp/decoder/lidar-decoder.js';
import { decodeZonePacket } from '../zones/zone-packets.js';
import { editPcapPayloads, readReferencePcap, SIM_FUSA_ZONE16 } from './helpers/pcap-reference.js';
import { replayUnit } from './helpers/replay-unit.js';

const metadata = JSON.parse(readFileSync(`${SIM_FUSA_ZONE16}.json`, 'utf8'));
const ports = metadata.config_params;
const initId: number = metadata.sensor_info.initialization_id;
const hex = (b: Buffer) => b.toString('hex');
const decoders = {
  lidar: (b: Buffer) => decodeLidarPacket(b, 'RNG15_RFL8_NIR8_ZONE16', 32, 'FUSA'),
  imu: (b: Buffer) => decodeImuNmeaPacket(b, 'FUSA'),
  zone: (b: Buffer) => decodeZonePacket(b, 'FUSA'),
};
/** The datagrams of the sample (or a copy of it) to each recorded port. */
function streams(pcap: string) {
  const reference = readReferencePcap(pcap);
  const to = (port: number) => reference.filter((d) => d.dstPort === port).map((d) => d.payload);
  return { lidar: to(ports.udp_port_lidar), imu: to(ports.udp_port_imu), zone: to(ports.udp_port_zm) };
}
const sample = streams(`${SIM_FUSA_ZONE16}.pcap`);

/** A copy of the sample whose frame ids start at `first` (every lidar, IMU and zone header moved alike). */
function movedTo(first: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'fusa-replay-'));
  const recordedFirst = decoders.lidar(sample.lidar[0]).frameId;
  const pcap = editPcapPayloads(`${SIM_FUSA_ZONE16}.pcap`, (p) => {
    p.writeUInt32LE(p.readUInt32LE(4) - recordedFirst + first, 4);
  });
  writeFileSync(join(dir, 'moved.pcap'), pcap);
  copyFileSync(`${SIM_FUSA_ZONE16}.json`, join(dir, 'moved.json'));
  return join(dir, 'moved');
}

describe('the simulator sample with the FUSA header', () => {
  it('holds what its metadata says: FUSA lidar, IMU and zone packets of one init_id, three frames, no CRC', () => {
    expect(metadata.lidar_data_format).toMatchObject({
      udp_profile_lidar: 'RNG15_RFL8_NIR8_ZONE16',
      header_type: 'FUSA',
    });
    expect(ports.header_type).toBe('FUSA');
    const lidar = sample.lidar.map(decoders.lidar);
    expect(lidar).toHaveLength(96);
    const frames = [...new Set(lidar.map((p) => p.frameId))];
    expect(frames).toEqual([frames[0], frames[0] + 1, frames[0] + 2]);
    for (const [i, p] of lidar.entries()) {
      expect([p.packetType, p.initId, p.footerOk, p.reservedZero], `lidar packet ${i}`).toEqual([
        1,
        initId,
        true,
        true,
      ]);
      expect(p.frameId).toBe(frames[Math.floor(i / 32)]);
      expect(p.columns.map((c) => c.measurementId)).toEqual(p.columns.map((_, c) => (i % 32) * 16 + c));
    }
    const zone = sample.zone.map(decoders.zone);
    expect(zone.map((p) => [p.packetType, p.initId, p.frameId, p.footerOk])).toEqual(
      frames.map((f) => [3, initId, f, true]),
    );
    expect(zone[0].zones.filter((z) => z.live).map((z) => z.id)).toEqual([0, 7]);
    const imu = sample.imu.map(decoders.imu);
    expect(imu).toHaveLength(24);
    for (const [i, p] of imu.entries()) {
      expect([p.packetType, p.initId, p.footerOk, p.measurements.length], `IMU packet ${i}`).toEqual([
        2,
        initId,
        true,
        8,
      ]);
      expect(p.frameId).toBe(frames[Math.floor(i / 8)]);
      for (const m of p.measurements) expect(m.measurementId).toBeLessThan(512);
    }
  });

  it('is replayed byte for byte (lidar, IMU, zone); the unit reports header_type FUSA and keeps it', async () => {
    const u = await replayUnit(SIM_FUSA_ZONE16);
    const zones = await u.capture();
    await u.listen({ udp_dest_zm: '127.0.0.1', udp_port_zm: zones.port });
    await waitFor(
      () => u.lidar.count >= 96 && u.imu.count >= sample.imu.length && zones.count >= sample.zone.length,
      10_000,
      'the whole recording',
    );
    expect(u.lidar.datagrams.map((d) => hex(d.data))).toEqual(sample.lidar.map(hex));
    expect(u.imu.datagrams.map((d) => hex(d.data))).toEqual(sample.imu.map(hex));
    expect(zones.datagrams.map((d) => hex(d.data))).toEqual(sample.zone.map(hex));
    const served = await u.getJson('/api/v1/sensor/metadata');
    expect(served.lidar_data_format.header_type).toBe('FUSA');
    expect(served.config_params.header_type).toBe('FUSA');
    const change = await u.post({ header_type: 'STANDARD' });
    expect(change.status).toBe(409);
    expect(((await change.json()) as { detail: string }).detail).toMatch(/header_type cannot change while replaying/);
    expect(await u.getJson('/api/v1/sensor/config/header_type')).toBe('FUSA');
  });
});

describe('a FUSA recording whose frame ids pass 65,535', () => {
  it('is read with its u32 frame ids: three whole frames, none missing, zone packets of those frames', () => {
    const r = loadRecording(`${movedTo(65_535)}.pcap`);
    expect(r.stats).toMatchObject({ frames: 3, completeFrames: 3, missingFrames: 0, zonePackets: 3 });
    expect(r.framesPerPass).toBe(3);
    expect([...new Set(r.packets.filter((p) => p.kind === 'lidar').map((p) => p.frameId))]).toEqual([
      65_535, 65_536, 65_537,
    ]);
    const zone = r.packets.filter((p) => p.kind === 'zone');
    expect(zone.map((p) => [p.frameId, p.wellFormed, p.crcOk])).toEqual([
      [65_535, true, null],
      [65_536, true, null],
      [65_537, true, null],
    ]);
  });

  it('loops on past the wrap of 16 bits: lidar, IMU and zone frame ids count on together, init_id kept', async () => {
    const moved = movedTo(65_534);
    const recorded = streams(`${moved}.pcap`);
    const u = await replayUnit(moved, ['--replay-loop', '--replay-rate', '4']);
    const zones = await u.capture();
    await u.listen({ udp_dest_zm: '127.0.0.1', udp_port_zm: zones.port });
    await waitFor(() => zones.count >= 6 && u.lidar.count >= 192 && u.imu.count >= 48, 15_000, 'two passes');
    expect(u.lidar.datagrams.slice(0, 96).map((d) => hex(d.data))).toEqual(recorded.lidar.map(hex));
    expect(zones.datagrams.slice(0, 3).map((d) => hex(d.data))).toEqual(recorded.zone.map(hex));
    const expected = [65_534, 65_535, 65_536, 65_537, 65_538, 65_539];
    const lidar = u.lidar.datagrams.slice(0, 192).map((d) => decoders.lidar(d.data));
    expect([...new Set(lidar.map((p) => p.frameId))]).toEqual(expected);
    const zone = zones.datagrams.slice(0, 6).map((d) => decoders.zone(d.data));
    expect(zone.map((p) => [p.frameId, p.initId, p.packetType, p.footerOk])).toEqual(
      expected.map((f) => [f, initId, 3, true]),
    );
    const imu = u.imu.datagrams.slice(0, 48).map((d) => decoders.imu(d.data));
    expect([...new Set(imu.map((p) => p.frameId))]).toEqual(expected);
    expect(imu.every((p) => p.initId === initId && p.footerOk)).toBe(true);
    expect(lidar.every((p) => p.initId === initId && p.footerOk)).toBe(true);
  });
});
