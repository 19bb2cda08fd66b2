/**
 * udp_multicast_ttl and udp_multicast_ttl_zm (firmware 3.2): with a multicast udp_dest, lidar datagrams leave
 * with udp_multicast_ttl; with a multicast udp_dest_zm, zone packets leave with udp_multicast_ttl_zm. The built
 * CLI runs in one network namespace, receivers that joined the groups in the other (joined by a veth pair),
 * reading each datagram's TTL from IP_RECVTTL. Root only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NetnsPair, netnsSkipReason, run, type SpawnedProcess } from '../helpers/netns.js';
import { waitFor } from '../helpers/poll.js';
import { decodeZonePacket, ZONE_PACKET_SIZE } from '../zones/zone-packets.js';

const skipReason = netnsSkipReason(['python3']);
if (skipReason) console.log(`skipping the multicast TTL namespace test: ${skipReason}`);

const RECEIVER = resolve(import.meta.dirname, 'netns/multicast-ttl-receiver.py');
const UNIT = '192.0.2.1';
const CLIENT = '192.0.2.2';
const GROUP = '239.1.2.3';
const PORT = 7502;
const ZONE_GROUP = '239.1.2.4';
const ZONE_PORT = 7504;

interface Datagram {
  size: number;
  ttl: number;
  from: string;
  /** The bytes of a small datagram (zone and IMU packets), base64. */
  payload?: string;
}

/**
 * The datagrams from the first one after `seen` that arrived with `ttl`, once `count` have arrived: after a
 * reinit every datagram has the new TTL, so the caller expects them all to have it.
 */
function fromFirstWithTtl(list: () => Datagram[], seen: number, ttl: number, count: number) {
  return waitFor(
    () => {
      const after = list().slice(seen);
      const first = after.findIndex((d) => d.ttl === ttl);
      return first >= 0 && after.length >= first + count && after.slice(first);
    },
    20_000,
    `${count} datagrams from the first with TTL ${ttl}`,
  );
}

const datagrams = (receiver: SpawnedProcess) =>
  receiver
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{"size"'))
    .map((l) => JSON.parse(l) as Datagram);

describe.skipIf(skipReason)('udp_multicast_ttl between network namespaces', () => {
  let pair: NetnsPair;
  let dataDir: string;
  let receiver: SpawnedProcess;
  const received = () => datagrams(receiver);
  const post = (body: unknown) =>
    pair.fetch(pair.b, `http://${UNIT}:8080/api/v1/sensor/config`, {
      method: 'POST',
      body: JSON.stringify(body),
      contentType: 'application/json',
    });

  beforeAll(async () => {
    pair = NetnsPair.create('mcttl', { a: [`${UNIT}/24`], b: [`${CLIENT}/24`] });
    // Multicast leaves the unit's namespace by the veth (a namespace has no route for it of its own).
    run(['ip', '-n', pair.a.ns, 'route', 'add', '224.0.0.0/4', 'dev', pair.a.iface]);
    dataDir = mkdtempSync(join(tmpdir(), 'sensor-mcttl-'));
    await pair.startUnit(UNIT, dataDir, ['--firmware-version', '3.2']);
    receiver = pair.spawn(pair.b, ['python3', RECEIVER, GROUP, String(PORT), CLIENT]);
    await waitFor(() => receiver.output().includes('"listening"'), 10_000, 'the receiver to join the group');
  }, 60_000);

  afterAll(async () => {
    await pair?.destroy();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('lidar datagrams to a multicast udp_dest arrive with udp_multicast_ttl, and follow a change of it', async () => {
    const set = await post({ udp_dest: GROUP, udp_port_lidar: PORT, udp_port_imu: 0, udp_multicast_ttl: 7 });
    expect(set.status, set.body).toBe(204);
    const first = await waitFor(() => received()[0], 20_000, 'a multicast datagram');
    expect(first.from).toBe(UNIT);
    expect(first.ttl).toBe(7);
    expect(first.size).toBe(24832); // RNG19_RFL8_SIG16_NIR16, 128 channels

    const seen = received().length;
    expect((await post({ udp_multicast_ttl: 200 })).status).toBe(204);
    const changed = await fromFirstWithTtl(received, seen, 200, 5);
    expect(changed.map((d) => d.ttl)).toEqual(changed.map(() => 200));
  });

  it('zone packets to a multicast udp_dest_zm arrive with udp_multicast_ttl_zm, the lidar stream keeping its own', async () => {
    const zoneReceiver = pair.spawn(pair.b, ['python3', RECEIVER, ZONE_GROUP, String(ZONE_PORT), CLIENT]);
    await waitFor(() => zoneReceiver.output().includes('"listening"'), 10_000, 'the zone receiver to join its group');
    const lidarSeen = received().length;
    const set = await post({
      udp_dest: GROUP,
      udp_multicast_ttl: 3,
      udp_dest_zm: ZONE_GROUP,
      udp_port_zm: ZONE_PORT,
      udp_multicast_ttl_zm: 11,
    });
    expect(set.status, set.body).toBe(204);
    const zone = await waitFor(() => datagrams(zoneReceiver)[0], 20_000, 'a multicast zone packet');
    expect(zone.from).toBe(UNIT);
    expect(zone.ttl).toBe(11);
    expect(zone.size).toBe(ZONE_PACKET_SIZE);
    expect(decodeZonePacket(Buffer.from(zone.payload ?? '', 'base64')).packetType).toBe(3);
    const lidar = await fromFirstWithTtl(received, lidarSeen, 3, 5);
    expect(lidar.map((d) => d.ttl)).toEqual(lidar.map(() => 3));

    const zoneSeen = datagrams(zoneReceiver).length;
    expect((await post({ udp_multicast_ttl_zm: 64 })).status).toBe(204);
    const changed = await fromFirstWithTtl(() => datagrams(zoneReceiver), zoneSeen, 64, 4);
    expect(changed.map((d) => d.ttl)).toEqual(changed.map(() => 64));
    expect(changed.every((d) => d.size === ZONE_PACKET_SIZE)).toBe(true);
  });
});
