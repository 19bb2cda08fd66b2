/**
 * A unit bound to its own address (`--host 192.0.2.2`, the address is also the source of its UDP data) whose
 * static IPv4 override moves that address: the built server runs with --hal linux in one namespace, a client
 * in the other talks HTTP to it and receives its lidar datagrams, noting the source address of each. Through
 * the override, a restart with the same arguments, the removal of the override and another restart, the unit
 * answers HTTP and mDNS and sends its data from wherever its address went, and only from there. An address
 * change the unit did not make (a DHCP lease renewed to another address) moves it too. Root only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkLocalFromMac } from '../../src/model/ipv4.js';
import { CLI_PATH } from '../helpers/cli-process.js';
import { linuxUnitArgs, NetnsPair, netnsSkipReason, type SpawnedProcess } from '../helpers/netns.js';
import { waitFor } from '../helpers/poll.js';

const skipReason = netnsSkipReason();
if (skipReason) console.log(`skipping the bound-address namespace tests: ${skipReason}`);

const BOUND = '192.0.2.2';
const OVERRIDE = '192.0.2.50/24';
const LIDAR_PORT = 7502;
const SERIAL = '122201000125';
/** The mDNS test's querier: a legacy unicast query to the unit's port 5353 and the answer as a JSON line. */
const QUERIER = resolve(import.meta.dirname, '../discovery/mdns-querier.mjs');
const json = 'application/json';

/** Receives datagrams on a port and prints a line each time their source address changes. */
const UDP_SOURCES = `
  import dgram from 'node:dgram';
  const socket = dgram.createSocket('udp4');
  let last = '';
  socket.on('message', (_data, from) => {
    if (from.address !== last) console.log('from ' + (last = from.address));
  });
  socket.bind(Number(process.argv[1]), '0.0.0.0', () => console.log('bound'));`;

describe.skipIf(skipReason)('a unit bound to its address follows its IPv4 override (network namespaces)', () => {
  let pair: NetnsPair;
  let dataDir: string;
  let server: SpawnedProcess | undefined;
  let receiver: SpawnedProcess;

  const url = (address: string, path: string) => `http://${address}/api/v1${path}`;
  const get = (address: string, path: string) => pair.fetch(pair.a, url(address, path));
  const send = (address: string, method: string, path: string, body?: unknown) =>
    pair.fetch(pair.a, url(address, path), {
      method,
      body: body === undefined ? undefined : JSON.stringify(body),
      contentType: json,
    });
  const kernelAddresses = () => pair.ipv4(pair.b).map((a) => a.cidr);
  /** The source of the lidar datagrams the client receives now. */
  const udpSource = () =>
    receiver
      .output()
      .trim()
      .split('\n')
      .pop()
      ?.replace(/^from /, '');

  /** The A record the unit's mDNS responder at `address` gives for its host name, asked from `from`. */
  function mdnsAddress(from: string, address: string): unknown {
    const out = pair.exec(pair.a, [process.execPath, QUERIER, 'legacy', from, address, `os-${SERIAL}.local`, 'A']);
    const reply = JSON.parse(out.trim().split('\n').pop() ?? '{}') as { answers?: { data: unknown }[] };
    return reply.answers?.[0]?.data;
  }

  async function answersOn(address: string): Promise<{ addr: string; override: string | null }> {
    return waitFor(
      async () => {
        if (server?.child.exitCode !== null) throw new Error(`the server exited: ${server?.output()}`);
        const res = await get(address, '/system/network/ipv4');
        return res.status === 200 ? JSON.parse(res.body) : undefined;
      },
      30_000,
      `the unit to answer on ${address}`,
    );
  }

  async function start(): Promise<void> {
    server = pair.spawn(pair.b, [
      process.execPath,
      CLI_PATH,
      ...linuxUnitArgs(pair.b, { serial: SERIAL, host: BOUND, dataDir }),
    ]);
  }

  async function stop(): Promise<void> {
    if (server) await pair.stop(server.child);
    expect(server?.child.exitCode).toBe(0);
  }

  beforeAll(async () => {
    // The client also has a link-local address, to reach the unit once the override is removed.
    pair = NetnsPair.create('bound', { a: ['192.0.2.1/24', '169.254.0.1/16'], b: [`${BOUND}/24`] });
    dataDir = mkdtempSync(join(tmpdir(), 'sensor-bound-'));
    receiver = pair.spawn(pair.a, [process.execPath, '--input-type=module', '-e', UDP_SOURCES, String(LIDAR_PORT)]);
    await waitFor(() => receiver.output().includes('bound'), 10_000, 'the UDP receiver to bind');
    await start();
    await answersOn(BOUND);
    const config = await send(BOUND, 'POST', '/sensor/config', { udp_dest: '192.0.2.1', udp_port_lidar: LIDAR_PORT });
    expect(config.status, config.body).toBe(204);
    await waitFor(() => udpSource() === BOUND, 30_000, `lidar data from ${BOUND}`);
  });

  afterAll(async () => {
    await pair?.destroy();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('moves its listener and UDP source to the override address, and answers only there', async () => {
    const put = await send(BOUND, 'PUT', '/system/network/ipv4/override', OVERRIDE);
    expect(put.status, put.body).toBe(200);
    expect(await answersOn('192.0.2.50')).toMatchObject({ addr: OVERRIDE, override: OVERRIDE });
    expect(kernelAddresses()).toEqual([OVERRIDE]);
    await waitFor(() => udpSource() === '192.0.2.50', 30_000, 'lidar data from 192.0.2.50').catch(() => {
      throw new Error(`lidar data still from ${udpSource()}: ${server?.output()}`);
    });
    expect((await get(BOUND, '/system/network/ipv4')).status).toBe(0);
    await waitFor(() => mdnsAddress('192.0.2.1', '192.0.2.50') === '192.0.2.50', 15_000, 'mDNS on 192.0.2.50');
  });

  it('starts again with the same arguments on the address the override moved it to, saying so', async () => {
    await stop();
    await start();
    expect(await answersOn('192.0.2.50')).toMatchObject({ addr: OVERRIDE, override: OVERRIDE });
    expect(server?.output()).toContain(`--host ${BOUND} is no longer an address of this machine`);
    await waitFor(() => udpSource() === '192.0.2.50', 30_000, 'lidar data from 192.0.2.50 after the restart');
  });

  it('moves to its link-local address when the override is removed, and starts there again', async () => {
    const del = await send('192.0.2.50', 'DELETE', '/system/network/ipv4/override');
    expect(del.status, del.body).toBe(204);
    const linkLocal = linkLocalFromMac(pair.mac(pair.b));
    const address = linkLocal.split('/')[0];
    expect(await answersOn(address)).toMatchObject({ addr: linkLocal, override: null });
    expect(kernelAddresses()).toEqual([linkLocal]);
    const config = await send(address, 'POST', '/sensor/config', { udp_dest: '169.254.0.1' });
    expect(config.status, config.body).toBe(204);
    await waitFor(() => udpSource() === address, 30_000, `lidar data from ${address}`);
    await waitFor(() => mdnsAddress('169.254.0.1', address) === address, 15_000, `mDNS on ${address}`);
    await stop();
    await start();
    expect(await answersOn(address)).toMatchObject({ addr: linkLocal, override: null });
    await waitFor(() => udpSource() === address, 30_000, `lidar data from ${address} after the restart`);
  });

  it('follows an address change it did not make (a DHCP lease renewed to another address)', async () => {
    const before = server?.output().length ?? 0;
    pair.exec(pair.b, ['ip', 'addr', 'flush', 'dev', pair.b.iface]);
    pair.exec(pair.b, ['ip', 'addr', 'add', '192.0.2.70/24', 'dev', pair.b.iface]);
    expect(await answersOn('192.0.2.70')).toMatchObject({ addr: '192.0.2.70/24', override: null });
    expect(server?.output().slice(before)).toContain("the interface's addresses changed (not by the unit)");
    const config = await send('192.0.2.70', 'POST', '/sensor/config', { udp_dest: '192.0.2.1' });
    expect(config.status, config.body).toBe(204);
    await waitFor(() => udpSource() === '192.0.2.70', 30_000, 'lidar data from 192.0.2.70');
    await waitFor(() => mdnsAddress('192.0.2.1', '192.0.2.70') === '192.0.2.70', 15_000, 'mDNS on 192.0.2.70');
  });
});
