/**
 * udp_multicast_ttl (firmware 3.2): with a multicast udp_dest, lidar datagrams leave with that IP TTL. The
 * built CLI runs in one network namespace, a receiver that joined the group in the other (joined by a veth
 * pair), reading each datagram's TTL from IP_RECVTTL. Root only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NetnsPair, netnsSkipReason, run, type SpawnedProcess } from '../helpers/netns.js';
import { waitFor } from '../helpers/poll.js';

const skipReason = netnsSkipReason(['python3']);
if (skipReason) console.log(`skipping the multicast TTL namespace test: ${skipReason}`);

const RECEIVER = resolve(import.meta.dirname, 'netns/multicast-ttl-receiver.py');
const UNIT = '192.0.2.1';
const CLIENT = '192.0.2.2';
const GROUP = '239.1.2.3';
const PORT = 7502;

describe.skipIf(skipReason)('udp_multicast_ttl between network namespaces', () => {
  let pair: NetnsPair;
  let dataDir: string;
  let receiver: SpawnedProcess;
  const received = () =>
    receiver
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{"size"'))
      .map((l) => JSON.parse(l) as { size: number; ttl: number; from: string });
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
    await waitFor(
      () =>
        received()
          .slice(seen)
          .some((d) => d.ttl === 200),
      20_000,
      'a datagram with TTL 200',
    );
    // After the reinit every datagram has the new TTL.
    const last = received().slice(-5);
    expect(last.every((d) => d.ttl === 200)).toBe(true);
  });
});
