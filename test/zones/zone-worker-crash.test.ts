/**
 * Live zones changed between initializations (a set applied, live_ids) outlive a crash of the emitter worker: the
 * HAL restarts the run with the plan it last applied, which carries the zones it was given since
 * (src/hal/emitter-streams.ts), so the new worker's zone packets watch the same live zones.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmitterStreams } from '../../src/hal/emitter-streams.js';
import { waitFor } from '../helpers/poll.js';
import { decodeZonePacket, type DecodedZonePacket } from './zone-packets.js';
import { stageAndApply, stlZoneSetZip } from './zone-set-zips.js';
import { closeZoneStreamingUnit, type ZoneStreamingUnit, zoneStreamingUnit } from './zone-streaming-unit.js';

/** The scene's crate (src/udp/scene/scene.ts) in the sensor frame, with a margin: returns in every frame. */
const AROUND_CRATE = { min: [-4.4, 1.1, -1.6], max: [-2.8, 2.7, -0.5] };
/** Empty space in front of the unit. */
const EMPTY = { min: [1, -0.5, -0.5], max: [2, 0.5, 0.5] };

let streaming: ZoneStreamingUnit;
beforeAll(async () => {
  streaming = await zoneStreamingUnit();
});
afterAll(() => closeZoneStreamingUnit(streaming));

/** The zone packets of the set `hash` that arrive after now, once `n` of them have. */
async function nextPackets(hash: Buffer, n: number, what: string): Promise<DecodedZonePacket[]> {
  streaming.zones.clear();
  return waitFor(
    () => {
      const packets = streaming.zones.datagrams.map((d) => decodeZonePacket(d.data)).filter((p) => p.hash.equals(hash));
      return packets.length >= n ? packets : undefined;
    },
    20_000,
    what,
  );
}

const liveZones = (p: DecodedZonePacket) =>
  p.zones.filter((z) => z.live).map((z) => ({ id: z.id, errorFlags: z.errorFlags, seen: z.count > 0 }));

describe('live zones and a crash of the emitter worker', () => {
  it('the restarted worker watches the live zones set since the last reinit', async () => {
    const { unit } = streaming;
    const zip = stlZoneSetZip([
      { id: 0, ...EMPTY, mode: 'OCCUPANCY', pointCount: 5 },
      { id: 4, ...AROUND_CRATE, mode: 'OCCUPANCY', pointCount: 10 },
    ]);
    await stageAndApply(unit.app, zip);
    const hash = createHash('sha256').update(zip).digest();
    // Between reinits: only zone 4 is live from now on.
    const live = await unit.app.inject({ method: 'POST', url: '/api/v1/zone_monitor/live_ids', payload: [4] });
    expect(live.statusCode, live.body).toBe(204);
    const watched = [{ id: 4, errorFlags: 0, seen: true }];
    const before = await waitFor(
      async () => {
        const packets = await nextPackets(hash, 2, 'zone packets with zone 4 alone live');
        return packets.every((p) => JSON.stringify(liveZones(p)) === JSON.stringify(watched)) ? packets : undefined;
      },
      20_000,
      'zone 4 alone live, with its images',
    );
    expect(liveZones(before[0])).toEqual(watched);

    const streams = unit.hal.streams;
    if (!(streams instanceof EmitterStreams)) throw new Error('the simulated unit streams through EmitterStreams');
    await streams.simulateWorkerCrash();
    // The crashed run sends nothing more: every packet from here on is the restarted worker's.
    const after = await nextPackets(hash, 3, 'zone packets of the restarted worker');
    for (const packet of after) expect(liveZones(packet)).toEqual(watched);
  });
});
