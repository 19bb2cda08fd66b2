/**
 * Zone packets come every frame while udp_dest_zm and udp_port_zm are set, as the SDK expects (it counts a
 * frame complete once its zone packet came): with empty slots when no set is active or no zone is live, and a
 * live slot reporting error flag 1 for a live id that names no zone of the active set.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZONE_ERROR_NO_IMAGES } from '../../src/udp/packets/zone-packet.js';
import { waitFor } from '../helpers/poll.js';
import { createTestSensor, removeDir, type TestSensor } from '../helpers/test-sensor.js';
import { UdpCapture } from '../udp/helpers/udp-capture.js';
import { decodeZonePacket, type DecodedZonePacket } from './zone-packets.js';
import { stageAndApply, stlZoneSetZip, zoneStreamConfig } from './zone-set-zips.js';

let unit: TestSensor;
let zones: UdpCapture;
let lidar: UdpCapture;

beforeAll(async () => {
  unit = await createTestSensor({ product: 'OS-1-32', unit: { firmwareVersion: '3.2' } });
  zones = await UdpCapture.listen();
  lidar = await UdpCapture.listen();
  const config = await unit.app.inject({
    method: 'POST',
    url: '/api/v1/sensor/config',
    payload: zoneStreamConfig(lidar.port, zones.port, '512x20'),
  });
  expect(config.statusCode, config.body).toBe(204);
});
afterAll(async () => {
  await zones.close();
  await lidar.close();
  await unit.close();
  removeDir(unit.dataDir);
});

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
});
