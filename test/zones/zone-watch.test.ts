/**
 * Zone Monitor in the data plane: a streaming 3.2 unit counts the scene's returns in its live zones every
 * frame and sends one zone packet per frame; an object put into the scene triggers a zone after its
 * frame count and clears it when it leaves.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FaultPlane } from '../../src/faults/fault-plane.js';
import { FAST_TIMING } from '../../src/faults/index.js';
import { crc64BigInt } from '../../src/udp/packets/crc64.js';
import type { TestSensor } from '../helpers/test-sensor.js';
import { waitFor } from '../helpers/poll.js';
import type { UdpCapture } from '../udp/helpers/udp-capture.js';
import { OS0_ZONES_NO_LIDAR, readReferencePcap } from '../replay/helpers/pcap-reference.js';
import { decodeZonePacket, type DecodedZonePacket } from './zone-packets.js';
import { type BoxZone, stageAndApply, stlZoneSetZip } from './zone-set-zips.js';
import { closeZoneStreamingUnit, zoneStreamingUnit } from './zone-streaming-unit.js';

/** The scene's crate (src/udp/scene/scene.ts, lidar frame 3.0..4.2 × -2.5..-1.3 × -1.7..-0.7 m) in the sensor frame, with a margin, above the floor. */
const AROUND_CRATE = { min: [-4.4, 1.1, -1.6], max: [-2.8, 2.7, -0.5] };
/** Empty space in front of the unit. */
const EMPTY = { min: [1, -0.5, -0.5], max: [2, 0.5, 0.5] };

let unit: TestSensor;
let zones: UdpCapture;
let lidar: UdpCapture;
let plane: FaultPlane;

beforeAll(async () => {
  ({ unit, zones, lidar } = await zoneStreamingUnit());
  plane = new FaultPlane(unit, { log: pino({ level: 'silent' }), timing: FAST_TIMING });
});
afterAll(async () => {
  plane.close();
  await closeZoneStreamingUnit({ unit, zones, lidar });
});
afterEach(() => plane.clear());

async function applySet(set: BoxZone[]): Promise<Uint8Array> {
  const zip = stlZoneSetZip(set);
  await stageAndApply(unit.app, zip);
  return zip;
}

/** The zone packets that arrive after now, once `n` of them carry the set of `hash`. */
async function nextPackets(hash: Buffer, n: number): Promise<DecodedZonePacket[]> {
  zones.clear();
  lidar.clear();
  return waitFor(
    () => {
      const packets = zones.datagrams.map((d) => decodeZonePacket(d.data)).filter((p) => p.hash.equals(hash));
      return packets.length >= n ? packets : undefined;
    },
    20_000,
    `${n} zone packets`,
  );
}

const sha256 = (zip: Uint8Array) => createHash('sha256').update(zip).digest();

/** A slot with no live zone in a real unit's zone packet: the first such slot of the SDK sample's first zone packet. */
const REAL_UNUSED_SLOT = (() => {
  const metadata = JSON.parse(readFileSync(`${OS0_ZONES_NO_LIDAR}_0.json`, 'utf8'));
  const first = readReferencePcap(`${OS0_ZONES_NO_LIDAR}.pcap`).find(
    (d) => d.dstPort === metadata.config_params.udp_port_zm,
  );
  if (!first) throw new Error('the SDK sample holds no zone packet');
  const slot = decodeZonePacket(first.payload).zones.find((z) => !z.live);
  if (!slot) throw new Error('the SDK sample has no slot without a live zone');
  return slot;
})();

describe('Zone Monitor watches the scene', () => {
  it('a zone around the crate triggers under OCCUPANCY and not VACANCY; one in empty space the opposite', async () => {
    const zip = await applySet([
      { id: 0, ...AROUND_CRATE, mode: 'OCCUPANCY', pointCount: 10 },
      { id: 1, ...AROUND_CRATE, mode: 'VACANCY', pointCount: 10 },
      { id: 2, ...EMPTY, mode: 'OCCUPANCY', pointCount: 5 },
      { id: 3, ...EMPTY, mode: 'VACANCY', pointCount: 5 },
    ]);
    const packets = await nextPackets(sha256(zip), 3);
    const last = packets.at(-1)!;
    const byId = new Map(last.zones.filter((z) => z.live).map((z) => [z.id, z]));
    expect([...byId.keys()]).toEqual([0, 1, 2, 3]);
    expect(byId.get(0)).toMatchObject({ triggerType: 1, triggerStatus: 1 });
    expect(byId.get(0)!.count).toBeGreaterThanOrEqual(10);
    expect(byId.get(1)).toMatchObject({ triggerType: 2, triggerStatus: 0 });
    expect(byId.get(2)).toMatchObject({ triggerType: 1, triggerStatus: 0, count: 0 });
    expect(byId.get(3)).toMatchObject({ triggerType: 2, triggerStatus: 1 });
    // The crate's returns lie where the crate is: 3.0 to ~4.6 m from the unit.
    expect(byId.get(0)!.minRange).toBeGreaterThan(2900);
    expect(byId.get(0)!.maxRange).toBeLessThan(5000);
    // The slots without a live zone are what a real unit sends in them (the vendor SDK's fw 3.2 sample).
    const unused = last.zones.filter((z) => !z.live);
    expect(unused).toHaveLength(12);
    for (const slot of unused) expect(slot).toEqual(REAL_UNUSED_SLOT);
  });

  it('zone packets: one per frame, frame ids consecutive, the zone_header layout with a valid CRC', async () => {
    const zip = await applySet([{ id: 7, ...AROUND_CRATE, pointCount: 10 }]);
    const packets = await nextPackets(sha256(zip), 6);
    const info = (await unit.app.inject({ url: '/api/v1/sensor/metadata/sensor_info' })).json();
    for (const [i, p] of packets.entries()) {
      expect(p.packetType).toBe(3);
      expect(p.initId).toBe(info.initialization_id);
      expect(String(p.serial)).toBe(info.prod_sn);
      if (i > 0) {
        expect(p.frameId).toBe((packets[i - 1].frameId + 1) & 0xffff);
        // 20 Hz: one packet per 50 ms frame of the unit's clock.
        expect(p.timestampNs - packets[i - 1].timestampNs).toBe(50_000_000n);
      }
    }
    for (const d of zones.datagrams.slice(0, 3))
      expect(crc64BigInt(d.data, 0, d.data.length - 8)).toBe(d.data.readBigUInt64LE(d.data.length - 8));
  });

  it('an object put into a zone triggers it after the frame count and clears it when it leaves', async () => {
    const zip = await applySet([{ id: 4, ...EMPTY, mode: 'OCCUPANCY', pointCount: 5, frameCount: 3 }]);
    const hash = sha256(zip);
    expect((await nextPackets(hash, 2)).at(-1)!.zones[0]).toMatchObject({ id: 4, count: 0, triggerStatus: 0 });
    const rule = plane.add({
      selector: { plane: 'unit' },
      action: { type: 'object', size_m: [0.4, 0.4, 0.4], position_m: [1.5, 0, 0] },
    });
    const seen = await waitFor(
      () => {
        const packets = zones.datagrams.map((d) => decodeZonePacket(d.data)).filter((p) => p.hash.equals(hash));
        const first = packets.findIndex((p) => p.zones[0].count >= 5);
        return first >= 0 && packets.length >= first + 4 ? packets.slice(first) : undefined;
      },
      20_000,
      'the object counted in the zone for 4 frames',
    );
    // Frames with the object: met, met, then triggered on the third, counting on.
    expect(seen.slice(0, 4).map((p) => [p.zones[0].triggerStatus, p.zones[0].triggeredFrames])).toEqual([
      [0, 0],
      [0, 0],
      [1, 1],
      [1, 2],
    ]);
    // The object's face 1.3 m in front of the unit.
    expect(seen[0].zones[0].minRange).toBeGreaterThan(1250);
    expect(seen[0].zones[0].minRange).toBeLessThan(1400);
    zones.clear();
    plane.remove(rule.id);
    const cleared = await waitFor(
      () => zones.datagrams.map((d) => decodeZonePacket(d.data)).find((p) => p.zones[0].count === 0),
      20_000,
      'the zone empty again',
    );
    expect(cleared.zones[0]).toMatchObject({ triggerStatus: 0, triggeredFrames: 0 });
  });

  it('in a ZONE16 profile each pixel carries the bits of the live zones that hold its return', async () => {
    const set = await unit.app.inject({
      method: 'POST',
      url: '/api/v1/sensor/config',
      payload: { udp_profile_lidar: 'RNG19_RFL8_SIG16_NIR16_ZONE16' },
    });
    expect(set.statusCode, set.body).toBe(204);
    const zip = await applySet([
      { id: 0, ...AROUND_CRATE, pointCount: 10 },
      { id: 1, ...EMPTY, pointCount: 5 },
    ]);
    const packets = await nextPackets(sha256(zip), 3);
    const frame = packets[1];
    // The lidar packets of that frame: 512 columns, 16 per packet, 32 channels of 12 bytes.
    const pixelBytes = 12;
    const size = 32 + 16 * (12 + 32 * pixelBytes) + 32;
    const ofFrame = () =>
      lidar.datagrams.filter((d) => d.data.length === size && d.data.readUInt16LE(2) === frame.frameId);
    // The zone packet comes on its own socket: the frame's lidar packets may still be on their way to theirs.
    await waitFor(() => ofFrame().length >= 32, 5000, "the 32 lidar packets of the zone packet's frame").catch(
      () => {},
    );
    let inZone0 = 0;
    let inZone1 = 0;
    let packetsOfFrame = 0;
    for (const d of ofFrame()) {
      packetsOfFrame++;
      for (let c = 0; c < 16; c++) {
        for (let p = 0; p < 32; p++) {
          const o = 32 + c * (12 + 32 * pixelBytes) + 12 + p * pixelBytes;
          const mask = d.data.readUInt16LE(o + 10);
          const range = d.data.readUInt32LE(o) & 0x7ffff;
          if (mask & 1) {
            inZone0++;
            expect(range).toBeGreaterThan(2900);
            expect(range).toBeLessThan(5000);
          }
          if (mask & 2) inZone1++;
          expect(mask & ~3).toBe(0);
        }
      }
    }
    expect(packetsOfFrame).toBe(32);
    // The same returns the zone packet of that frame counted.
    expect(inZone0).toBe(frame.zones[0].count);
    expect(inZone0).toBeGreaterThan(10);
    expect(inZone1).toBe(0);
  });
});
