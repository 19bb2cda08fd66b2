/**
 * Zone packets come every frame while udp_dest_zm and udp_port_zm are set, as the SDK expects (it counts a
 * frame complete once its zone packet came): with empty slots when no set is active or no zone is live, and a
 * live slot reporting error flag 1 for a live id that names no zone of the active set. With header_type FUSA they
 * carry FUSA's header: the SDK reads a stream's lidar, IMU and zone packets with one PacketFormat
 * (ouster_core/src/parsing.cpp), whose FUSA header fields (u8 packet type, u24 init id at byte 1, u32 frame id at
 * byte 4, alert flags at byte 8, serial at byte 11) and missing CRC apply to zone packets too, and its frame batcher
 * joins a frame's zone packet to the lidar packets by that frame id.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZONE_ERROR_NO_IMAGES } from '../../src/udp/packets/zone-packet.js';
import { waitFor } from '../helpers/poll.js';
import type { TestSensor } from '../helpers/test-sensor.js';
import { decodeLidarPacket } from '../udp/decoder/lidar-decoder.js';
import type { UdpCapture } from '../udp/helpers/udp-capture.js';
import { decodeZonePacket, type DecodedZonePacket } from './zone-packets.js';
import { stageAndApply, stlZoneSetZip } from './zone-set-zips.js';
import { closeZoneStreamingUnit, zoneStreamingUnit } from './zone-streaming-unit.js';

let unit: TestSensor;
let zones: UdpCapture;
let lidar: UdpCapture;

beforeAll(async () => {
  ({ unit, zones, lidar } = await zoneStreamingUnit());
});
afterAll(() => closeZoneStreamingUnit({ unit, zones, lidar }));

/** The first three zone packets of `hash` that arrive from now on and satisfy `which`. */
async function threeFrames(
  hash: Buffer,
  which: (p: DecodedZonePacket) => boolean = () => true,
): Promise<DecodedZonePacket[]> {
  zones.clear();
  return waitFor(
    () => {
      const packets = zones.datagrams
        .map((d) => decodeZonePacket(d.data))
        .filter((p) => p.hash.equals(hash) && which(p));
      return packets.length >= 3 ? packets.slice(0, 3) : undefined;
    },
    20_000,
    'three zone packets',
  );
}

const consecutive = (packets: DecodedZonePacket[]) =>
  packets.every((p, i) => i === 0 || p.frameId === ((packets[i - 1].frameId + 1) & 0xffff));

describe('a zone packet every frame', () => {
  it('with no zone set active: every slot empty, the hash zero', async () => {
    const packets = await threeFrames(Buffer.alloc(32));
    expect(consecutive(packets), packets.map((p) => p.frameId).join()).toBe(true);
    for (const p of packets) expect(p.zones.filter((z) => z.live)).toEqual([]);
  });

  it('with a set active and no zone live: every slot empty, the set hash', async () => {
    const zip = stlZoneSetZip([{ id: 0, min: [2, -0.5, -0.5], max: [4, 0.5, 0.5] }], []);
    await stageAndApply(unit.app, zip);
    const packets = await threeFrames(createHash('sha256').update(zip).digest());
    expect(consecutive(packets), packets.map((p) => p.frameId).join()).toBe(true);
    for (const p of packets) expect(p.zones.filter((z) => z.live)).toEqual([]);
  });

  it('a live id naming no zone of the set: its slot live, with error flag 1', async () => {
    const zip = stlZoneSetZip([{ id: 0, min: [2, -0.5, -0.5], max: [4, 0.5, 0.5] }]);
    await stageAndApply(unit.app, zip);
    const live = await unit.app.inject({ method: 'POST', url: '/api/v1/zone_monitor/live_ids', payload: [0, 2] });
    expect(live.statusCode, live.body).toBe(204);
    const [packet] = await threeFrames(createHash('sha256').update(zip).digest(), (p) => p.zones[1].live);
    expect(packet.zones.slice(0, 2).map((z) => [z.live, z.id, z.errorFlags])).toEqual([
      [true, 0, 0],
      [true, 2, ZONE_ERROR_NO_IMAGES],
    ]);
  });

  // Last: it changes the unit's header_type.
  it("with header_type FUSA: FUSA's header and footer, the lidar frames' u32 frame ids, init id and serial", async () => {
    const config = await unit.app.inject({
      method: 'POST',
      url: '/api/v1/sensor/config',
      payload: { header_type: 'FUSA' },
    });
    expect(config.statusCode, config.body).toBe(204);
    zones.clear();
    lidar.clear();
    // The first zone packet's frame may have begun before the capture did: three after it.
    const packets = await waitFor(
      () =>
        zones.datagrams.length >= 4 ? zones.datagrams.slice(1, 4).map((d) => decodeZonePacket(d.data, 'FUSA')) : 0,
      20_000,
      'four zone packets',
    );
    const lidarPackets = lidar.datagrams.map((d) => decodeLidarPacket(d.data, 'RNG19_RFL8_SIG16_NIR16', 32, 'FUSA'));
    const lidarFrames = new Set(lidarPackets.map((p) => p.frameId));
    const { initId, serial } = lidarPackets[0];
    for (const [i, p] of packets.entries()) {
      expect([p.packetType, p.initId, p.serial, p.reservedZero, p.footerOk]).toEqual([3, initId, serial, true, true]);
      expect(lidarFrames.has(p.frameId), `zone frame ${p.frameId} among the lidar frames`).toBe(true);
      if (i > 0) expect(p.frameId).toBe(packets[i - 1].frameId + 1);
    }
  });
});
