/**
 * Replaying recordings of firmware 3.2 units (Zone Monitor): ZONE16 lidar packets, IMU packets and zone
 * packets are sent byte for byte, zone packets to udp_dest_zm:udp_port_zm; the replaying unit serves the
 * recorded zone set and live ids and refuses to change them.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { crc64xz } from '../udp/decoder/crc64-xz.js';
import { waitFor } from '../helpers/poll.js';
import { decodeZonePacket } from '../zones/zone-packets.js';
import { OS0_ZONES_NO_LIDAR, readReferencePcap, SIM_ZONE16 } from './helpers/pcap-reference.js';
import { replayUnit } from './helpers/replay-unit.js';

const hex = (b: Buffer) => b.toString('hex');

describe.each([
  ['the vendor SDK sample (OS-0-128, IMU and zone packets)', OS0_ZONES_NO_LIDAR, `${OS0_ZONES_NO_LIDAR}_0.json`],
  ['the simulator sample (OS-1-32, ZONE16 lidar, IMU and zone packets)', SIM_ZONE16, `${SIM_ZONE16}.json`],
])('replaying %s', (_name, base, metadataFile) => {
  const metadata = JSON.parse(readFileSync(metadataFile, 'utf8'));
  const ports = metadata.config_params;
  const reference = readReferencePcap(`${base}.pcap`);
  const recorded = (port: number) => reference.filter((d) => d.dstPort === port).map((d) => hex(d.payload));
  const recordedLidar = recorded(ports.udp_port_lidar);
  const recordedImu = recorded(ports.udp_port_imu);
  const recordedZone = recorded(ports.udp_port_zm);

  it('sends every lidar, IMU and zone datagram byte for byte, zone packets to udp_dest_zm:udp_port_zm', async () => {
    expect(recordedZone.length).toBeGreaterThan(0);
    const u = await replayUnit(base, ['--metadata', metadataFile]);
    const zones = await u.capture();
    await u.listen({ udp_dest_zm: '127.0.0.1', udp_port_zm: zones.port });
    await waitFor(
      () =>
        u.lidar.count >= recordedLidar.length &&
        u.imu.count >= recordedImu.length &&
        zones.count >= recordedZone.length,
      10_000,
      'the whole recording',
    );
    expect(u.lidar.datagrams.map((d) => hex(d.data))).toEqual(recordedLidar);
    expect(u.imu.datagrams.map((d) => hex(d.data))).toEqual(recordedImu);
    expect(zones.datagrams.map((d) => hex(d.data))).toEqual(recordedZone);
    // One zone packet per recorded frame, as recorded. (Arrival order across two sockets is the receiver's,
    // not the sender's: the send order is the recorded one, which the byte-exact lists above hold per stream.)
    const frameOf = (b: Buffer) => b.readUInt16LE(2);
    expect(zones.datagrams.map((d) => frameOf(d.data))).toEqual([
      ...new Set(reference.filter((d) => d.dstPort === ports.udp_port_zm).map((d) => frameOf(d.payload))),
    ]);
  });

  it('reports firmware 3.2 and the ZONE16 profile, serves the recorded zone set and live ids, refuses changes', async () => {
    const u = await replayUnit(base, ['--metadata', metadataFile]);
    expect((await u.getJson('/api/v1/system/firmware')).fw).toBe(metadata.sensor_info.image_rev);
    const served = await u.getJson('/api/v1/sensor/metadata');
    expect(served.lidar_data_format.udp_profile_lidar).toBe(metadata.lidar_data_format.udp_profile_lidar);
    expect(served.config_params.udp_profile_lidar).toMatch(/_ZONE16/);

    const active = await fetch(`${u.server.url}/api/v1/zone_monitor/active/zip`);
    expect(active.status).toBe(200);
    expect(Buffer.from(await active.arrayBuffer()).equals(Buffer.from(metadata.zone_set, 'base64'))).toBe(true);
    // The live ids are those the recorded zone packets report as live.
    const zonePacket = decodeZonePacket(Buffer.from(recordedZone[0], 'hex'));
    const liveInPackets = zonePacket.zones.filter((z) => z.live).map((z) => z.id);
    expect(await u.getJson('/api/v1/zone_monitor/live_ids')).toEqual(liveInPackets);

    const setLive = await fetch(`${u.server.url}/api/v1/zone_monitor/live_ids`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(liveInPackets.slice(0, 1)),
    });
    expect(setLive.status).toBe(409);
    expect(((await setLive.json()) as { detail: string }).detail).toMatch(/while replaying a recording/);
    expect(await u.getJson('/api/v1/zone_monitor/live_ids')).toEqual(liveInPackets);
  });
});

describe('looping a recording with zone packets', () => {
  it('moves the zone packets on with the lidar frames: frame ids and timestamps increase, the CRC stays valid', async () => {
    const reference = readReferencePcap(`${SIM_ZONE16}.pcap`);
    const metadata = JSON.parse(readFileSync(`${SIM_ZONE16}.json`, 'utf8'));
    const recordedZone = reference.filter((d) => d.dstPort === metadata.config_params.udp_port_zm);
    const u = await replayUnit(SIM_ZONE16, ['--replay-loop', '--replay-rate', '4']);
    const zones = await u.capture();
    await u.listen({ udp_dest_zm: '127.0.0.1', udp_port_zm: zones.port });
    await waitFor(() => zones.count >= recordedZone.length * 3, 15_000, 'three passes of zone packets');
    const got = zones.datagrams.slice(0, recordedZone.length * 3).map((d) => d.data);
    expect(got.slice(0, recordedZone.length).map(hex)).toEqual(recordedZone.map((d) => hex(d.payload)));
    const decoded = got.map((b) => decodeZonePacket(b));
    for (let i = 1; i < decoded.length; i++) {
      expect(decoded[i].frameId, `frame id of zone packet ${i}`).toBe((decoded[i - 1].frameId + 1) & 0xffff);
      expect(decoded[i].timestampNs > decoded[i - 1].timestampNs, `timestamp of zone packet ${i}`).toBe(true);
    }
    for (const [i, b] of got.entries())
      expect(crc64xz(b, 0, b.length - 8), `CRC of zone packet ${i}`).toBe(b.readBigUInt64LE(b.length - 8));
    // Apart from frame id, timestamp and CRC, a later pass is the recording.
    const blank = (b: Buffer) => hex(Buffer.concat([b.subarray(4, 32), b.subarray(40, b.length - 8)]));
    expect(got.slice(recordedZone.length, recordedZone.length * 2).map(blank)).toEqual(
      recordedZone.map((d) => blank(d.payload)),
    );
  });
});
