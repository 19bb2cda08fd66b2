/**
 * The real CLI (dist/cli.js, built by `npm test`) as a user runs it: listening on a specific address,
 * sending data from that address, stopping its streams on SIGTERM; and the udp-monitor tool on it.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, startCli, type CliProcess } from '../helpers/cli-process.js';
import { StreamClock } from './helpers/stream-clock.js';
import { checkLidarStream, expectationsFrom, packetsInWindow, type StreamMetadata } from './helpers/stream-checks.js';
import { UdpCapture, drain } from './helpers/udp-capture.js';
import { waitFor } from '../helpers/poll.js';
import { RECORDINGS } from '../helpers/recordings.js';

const running: CliProcess[] = [];
const captures: UdpCapture[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((p) => p.kill()));
  await Promise.all(captures.splice(0).map((c) => c.close()));
});

async function metadata(cli: CliProcess) {
  const res = await fetch(`${cli.baseUrl}/api/v1/sensor/metadata`);
  expect(res.status).toBe(200);
  return (await res.json()) as StreamMetadata;
}

/** udp-monitor on a free port, configuring `cli` to send there, for 3 s; its exit code and output. */
async function runMonitor(cli: CliProcess, extra: string[] = []) {
  const port = await freeUdpPort();
  const monitor = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      resolve(import.meta.dirname, '../../scripts/udp-monitor.ts'),
      '--port',
      String(port),
      '--imu-port',
      '0',
      '--sensor',
      cli.baseUrl,
      '--configure',
      '--duration',
      '3',
      ...extra,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  monitor.stdout.on('data', (d: Buffer) => (out += d.toString()));
  monitor.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((r) => monitor.once('exit', r));
  return { code, out };
}

async function freeUdpPort(): Promise<number> {
  const probe = await UdpCapture.listen();
  const port = probe.port;
  await probe.close();
  return port;
}

describe('the CLI as a simulated sensor', () => {
  it('sends lidar and IMU data from the address it listens on (127.0.0.2) and stops sending on SIGTERM', async () => {
    const cli = await startCli({ host: '127.0.0.2', args: ['--product', 'OS-0-64'] });
    running.push(cli);
    const [l, i] = [await UdpCapture.listen(), await UdpCapture.listen()];
    captures.push(l, i);
    const res = await fetch(`${cli.baseUrl}/api/v1/sensor/config`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        udp_dest: '127.0.0.1',
        udp_port_lidar: l.port,
        udp_port_imu: i.port,
        lidar_mode: '512x20',
        udp_profile_lidar: 'FUSA_RNG15_RFL8_NIR8_DUAL',
      }),
    });
    expect(res.status).toBe(204);
    const e = expectationsFrom(await metadata(cli));
    await waitFor(() => l.count >= 3 * packetsInWindow(e) + 1 && i.count >= 3, 20_000, 'data from the CLI');
    expect(new Set([...l.datagrams, ...i.datagrams].map((d) => d.from.address))).toEqual(new Set(['127.0.0.2']));
    expect(
      checkLidarStream(
        l.datagrams.map((d) => d.data),
        e,
      ).complete.length,
    ).toBeGreaterThanOrEqual(2);

    expect(await cli.stop()).toBe(0);
    const [lm, im] = [await drain(l), await drain(i)];
    const clock = new StreamClock();
    await clock.twoFrames();
    await clock.close();
    expect(l.count).toBe(lm + 1);
    expect(i.count).toBe(im + 1);
  }, 40_000);

  it('udp-monitor shows complete frames, the init id and the profile of the data flowing', async () => {
    const cli = await startCli({ host: '127.0.0.1' });
    running.push(cli);
    const { code, out } = await runMonitor(cli);
    expect(code, out).toBe(0);
    const md = await metadata(cli);
    expect(out).toContain(`init_id ${md.sensor_info.initialization_id}`);
    expect(out).toContain('RNG19_RFL8_SIG16_NIR16 128ch 1024x10');
    expect(out).toMatch(/frames [1-9]\d* complete/);
    // Loopback unless told: the monitor opens no port to the network by default.
    expect(out).toMatch(/^listening on 127\.0\.0\.1:\d+ \(lidar\)/m);
  }, 40_000);

  it('udp-monitor reads the LEGACY packets of a replayed firmware 2.x recording', async () => {
    const cli = await startCli({
      host: '127.0.0.1',
      args: ['--replay', `${RECORDINGS}OS-2-32-U0_v2.0.0_1024x10.pcap`, '--replay-loop'],
    });
    running.push(cli);
    const { code, out } = await runMonitor(cli);
    expect(code, out).toBe(0);
    expect(out).toContain('expecting LEGACY, 32 channels, 1024x20');
    expect(out).toMatch(/lidar [1-9]\d* pkt\/s.*\| LEGACY 32ch 1024x20 \(LEGACY packets carry no init_id/);
    expect(out).not.toMatch(/of unexpected size/);
  }, 40_000);

  it("udp-monitor --zone-port prints each live zone's state from the zone packets: the sample set's zone, triggered", async () => {
    const control = await freePort();
    const cli = await startCli({
      host: '127.0.0.1',
      args: ['--firmware-version', '3.2', '--control', `127.0.0.1:${control}`],
    });
    running.push(cli);
    const api = (path: string, init?: RequestInit) => fetch(`${cli.baseUrl}/api/v1${path}`, init);
    const staged = await api('/zone_monitor/staged/zip', {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: readFileSync(resolve(import.meta.dirname, '../fixtures/zone-sets/front-box.zip')),
    });
    expect(staged.status, await staged.text()).toBe(204);
    expect((await api('/zone_monitor/apply', { method: 'POST' })).status).toBe(204);
    // docs/zone-monitor.md's box, in the zone for the whole run.
    const added = await fetch(`http://127.0.0.1:${control}/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        selector: { plane: 'unit' },
        action: { type: 'object', size_m: [0.4, 0.4, 0.4], position_m: [1.5, 0, 0] },
      }),
    });
    expect(added.status).toBe(201);
    const { code, out } = await runMonitor(cli, ['--zone-port', String(await freeUdpPort())]);
    expect(code, out).toBe(0);
    expect(out).toMatch(/\| zones [1-9]\d* pkt\/s: 0 triggered \([1-9]\d*\)/);
  }, 40_000);
});
