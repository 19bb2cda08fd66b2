/**
 * The Linux network HAL for real: the server runs with --hal linux inside a namespace (listening on
 * 0.0.0.0:80 as a unit does) on one end of a veth pair; a client in the other namespace sets a
 * static IPv4 override, reaches the unit on the new address only, sees it survive a restart, and
 * deletes it again (link-local fallback). The kernel's address list is read back with `ip`. Root only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkLocalFromMac } from '../../src/model/ipv4.js';
import { linuxUnitArgs, NetnsPair, netnsSkipReason, type SpawnedProcess } from '../helpers/netns.js';
import { waitFor } from '../helpers/poll.js';

const skipReason = netnsSkipReason();
if (skipReason) console.log(`skipping the network namespace tests: ${skipReason}`);

const REPO = resolve(import.meta.dirname, '../..');
const OVERRIDE = '192.0.2.100/24';

describe.skipIf(skipReason)('static IPv4 override on a real interface (network namespaces)', () => {
  let pair: NetnsPair;
  let dataDir: string;
  let server: SpawnedProcess | undefined;

  /** Starts the CLI from source inside the sensor's namespace and waits until `address` answers. */
  async function startServer(address: string): Promise<void> {
    server = pair.spawn(pair.b, [
      process.execPath,
      '--import',
      resolve(REPO, 'node_modules/tsx/dist/esm/index.mjs'),
      resolve(REPO, 'src/main/cli.ts'),
      ...linuxUnitArgs(pair.b, { serial: '122201000123', host: '0.0.0.0', dataDir }),
    ]);
    const started = server;
    // Ask only once the kernel has the address: a client that ARPs for a missing one waits out its timeout.
    await waitFor(
      () => kernelAddresses().some((c) => c.startsWith(`${address}/`)),
      30_000,
      `${address} on the interface`,
    );
    await waitFor(
      async () => {
        if (started.child.exitCode !== null) throw new Error(`the server exited: ${started.output()}`);
        return (await get(address, '/api/v1/system/network/ipv4')).status === 200;
      },
      30_000,
      `the server to answer on ${address}`,
    );
  }

  const get = (address: string, path: string) => pair.fetch(pair.a, `http://${address}${path}`);
  const kernelAddresses = () => pair.ipv4(pair.b).map((a) => a.cidr);

  beforeAll(async () => {
    // The client side also has a link-local address, to reach the unit after it falls back to one.
    pair = NetnsPair.create('net', { a: ['192.0.2.1/24', '169.254.0.1/16'], b: ['192.0.2.2/24'] });
    dataDir = mkdtempSync(join(tmpdir(), 'sensor-netns-'));
    await startServer('192.0.2.2');
  });

  afterAll(async () => {
    if (server) await pair?.stop(server.child);
    await pair?.destroy();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('reads the real interface', async () => {
    const res = await get('192.0.2.2', '/api/v1/system/network');
    expect(res.status).toBe(200);
    const network = JSON.parse(res.body);
    expect(network.ethaddr).toBe(pair.mac(pair.b));
    expect(network.carrier).toBe(true);
    expect(network.duplex).toBe('full');
    expect(network.speed).toBe(10000); // what the veth driver reports
    expect(network.ipv4).toEqual({ addr: '192.0.2.2/24', link_local: '', override: null });
    expect(network.ipv6.link_local).toMatch(/^fe80::[0-9a-f:]+\/64$/);
  });

  it('answers a bad override with 400 and changes nothing', async () => {
    const res = await pair.fetch(pair.a, 'http://192.0.2.2/api/v1/system/network/ipv4/override', {
      method: 'PUT',
      body: '"224.0.0.1/24"',
      contentType: 'application/json',
    });
    expect(res.status).toBe(400);
    expect(kernelAddresses()).toEqual(['192.0.2.2/24']);
  });

  it('moves to the override address and is reachable only there', async () => {
    const put = await pair.fetch(pair.a, 'http://192.0.2.2/api/v1/system/network/ipv4/override', {
      method: 'PUT',
      body: JSON.stringify(OVERRIDE),
      contentType: 'application/json',
    });
    expect(put.status).toBe(200);
    expect(JSON.parse(put.body)).toBe(OVERRIDE);
    await waitFor(() => kernelAddresses().includes(OVERRIDE), 15_000, `${OVERRIDE} on the interface`);
    const ipv4 = await waitFor(
      async () => {
        const res = await get('192.0.2.100', '/api/v1/system/network/ipv4');
        return res.status === 200 ? JSON.parse(res.body) : undefined;
      },
      15_000,
      'the unit to answer on 192.0.2.100',
    );
    expect(ipv4).toEqual({ addr: OVERRIDE, link_local: '', override: OVERRIDE });
    expect(pair.ipv4(pair.b)).toEqual([{ cidr: OVERRIDE, label: `${pair.b.iface}:ovr`, scope: 'global' }]);
    expect((await get('192.0.2.2', '/api/v1/system/network/ipv4')).status).toBe(0);
  });

  it('keeps the override across a restart and puts it back on the interface', async () => {
    await pair.stop(server!.child);
    // Something removed the address while the unit was down: the boot puts it back.
    pair.exec(pair.b, ['ip', '-4', 'addr', 'flush', 'dev', pair.b.iface]);
    expect(kernelAddresses()).toEqual([]);
    await startServer('192.0.2.100');
    const res = await get('192.0.2.100', '/api/v1/system/network/ipv4/override');
    expect(JSON.parse(res.body)).toBe(OVERRIDE);
    expect(kernelAddresses()).toEqual([OVERRIDE]);
  });

  it('returns to dynamic addressing on DELETE, falling back to its link-local address', async () => {
    const del = await pair.fetch(pair.a, 'http://192.0.2.100/api/v1/system/network/ipv4/override', {
      method: 'DELETE',
    });
    expect(del.status).toBe(204);
    const linkLocal = linkLocalFromMac(pair.mac(pair.b));
    await waitFor(() => kernelAddresses().join() === linkLocal, 15_000, `the interface to hold only ${linkLocal}`);
    const address = linkLocal.split('/')[0];
    const res = await waitFor(
      async () => {
        const r = await get(address, '/api/v1/system/network/ipv4');
        return r.status === 200 ? r : undefined;
      },
      15_000,
      `the unit to answer on ${address}`,
    );
    expect(JSON.parse(res.body)).toEqual({ addr: linkLocal, link_local: linkLocal, override: null });
  });
});
