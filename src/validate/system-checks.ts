/**
 * The system documents as read: the network (address forms, ipv4 against its own endpoints), the firmware
 * fields, user data with and without its metadata, and the diagnostics dump's download headers.
 */
import { type CheckRun, expectThat, type NamedCheck, show } from './check-run.js';
import type { Json, UnitClient } from './unit-client.js';

export async function systemChecks(run: CheckRun, client: UnitClient): Promise<void> {
  await networkChecks(run, client);
  await run.check('firmware.fields', 'firmware commit_pending is a boolean and fw a non-empty string', async () => {
    const firmware = await client.readJson('/api/v1/system/firmware');
    expectThat(
      typeof firmware.commit_pending === 'boolean' && typeof firmware.fw === 'string' && firmware.fw !== '',
      show(firmware),
    );
  });
  await run.check(
    'user-data.value',
    'GET /api/v1/user/data is a JSON string, equal to include_metadata value',
    async () => {
      const value = (await client.read('/api/v1/user/data')).json;
      const withMeta = await client.readJson('/api/v1/user/data?include_metadata=true');
      expectThat(typeof value === 'string' && value === withMeta.value, `${show(value)} vs ${show(withMeta.value)}`);
    },
  );
  await run.check(
    'user-data.policy',
    'user data policy is clear_on_config_delete or keep_on_config_delete',
    async () => {
      const withMeta = await client.readJson('/api/v1/user/data?include_metadata=1');
      expectThat(
        ['clear_on_config_delete', 'keep_on_config_delete'].includes(String(withMeta.policy)),
        show(withMeta.policy),
      );
    },
  );
  await run.check(
    'diagnostics.dump',
    'GET /api/v1/diagnostics/dump: 200 application/octet-stream, attachment with a file name',
    async () => {
      const answer = await client.request('GET', '/api/v1/diagnostics/dump');
      expectThat(answer.status === 200, `answered ${answer.status}`);
      expectThat(answer.contentType.startsWith('application/octet-stream'), `Content-Type ${answer.contentType}`);
      expectThat(
        /attachment;\s*filename=/i.test(answer.headers.get('content-disposition') ?? ''),
        `Content-Disposition ${show(answer.headers.get('content-disposition'))}`,
      );
    },
  );
}

async function networkChecks(run: CheckRun, client: UnitClient): Promise<void> {
  const network = await client.readJson('/api/v1/system/network').catch(() => undefined);
  if (!network) {
    run.skip('network', 'network checks', 'GET /api/v1/system/network unreadable');
    return;
  }
  const ipv4 = network.ipv4 as Json;
  const cidr = /^(\d{1,3}\.){3}\d{1,3}\/\d{1,2}$/;
  const rules: NamedCheck[] = [
    [
      'network.ethaddr',
      'network ethaddr is a MAC address',
      () => expectThat(/^([0-9a-f]{2}:){5}[0-9a-f]{2}$/i.test(String(network.ethaddr)), show(network.ethaddr)),
    ],
    [
      'network.duplex',
      'network duplex is half or full',
      () => expectThat(network.duplex === 'half' || network.duplex === 'full', show(network.duplex)),
    ],
    [
      'network.speed',
      'network speed is an integer (Mbps)',
      () => expectThat(Number.isInteger(network.speed), show(network.speed)),
    ],
    [
      'network.speed-override',
      'network speed_override is null or 100',
      () => expectThat(network.speed_override === null || network.speed_override === 100, show(network.speed_override)),
    ],
    [
      'network.carrier',
      'network carrier is a boolean',
      () => expectThat(typeof network.carrier === 'boolean', show(network.carrier)),
    ],
    [
      'network.ipv4.addr',
      'ipv4 addr is an address with prefix length',
      () => expectThat(cidr.test(String(ipv4.addr)), show(ipv4.addr)),
    ],
    [
      'network.ipv4.link-local',
      'ipv4 link_local is a 169.254/16 address with prefix length',
      () => expectThat(/^169\.254\.\d+\.\d+\/\d+$/.test(String(ipv4.link_local)), show(ipv4.link_local)),
    ],
    [
      'network.ipv6.link-local',
      'ipv6 link_local is an fe80:: address',
      () => expectThat(/^fe80:/i.test(String((network.ipv6 as Json)?.link_local)), show(network.ipv6)),
    ],
  ];
  for (const [id, title, body] of rules) await run.check(id, title, body);
  await run.check('network.ipv4.same', 'GET /api/v1/system/network/ipv4 equals network.ipv4', async () => {
    const single = await client.readJson('/api/v1/system/network/ipv4');
    expectThat(JSON.stringify(single) === JSON.stringify(ipv4), `${show(single)} ≠ ${show(ipv4)}`);
  });
  await run.check(
    'network.ipv4.override',
    'GET …/ipv4/override equals ipv4.override (null or an address)',
    async () => {
      const value = (await client.read('/api/v1/system/network/ipv4/override')).json ?? null;
      expectThat(
        value === ipv4.override && (value === null || cidr.test(String(value))),
        `${show(value)} vs ${show(ipv4.override)}`,
      );
    },
  );
}
