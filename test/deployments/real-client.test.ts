/**
 * The Docker recipes of "Pointing a real client at it", each run with a receiver that applies the vendor SDK's rule
 * (`SensorPacketSource::get_packet_internal`, SDK >= 1.0, ouster-ros): a datagram counts only when its source is
 * the address the client talks HTTP to. Each documented recipe must deliver lidar frames and IMU packets under that
 * rule; a published port (`-p`, NAT) must lose them all, although they arrive, so the docs cannot drift back to it.
 * The validator's `udp.source-address` check says the same about both.
 */
import { execFile } from 'node:child_process';
import { createSocket, type Socket } from 'node:dgram';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CLI_PATH } from '../helpers/cli-process.js';
import { waitFor } from '../helpers/poll.js';
import { docker, inspect, PREFIX, publishedPort, removeAll } from './docker.js';

const skip = inject('dockerSkip');
const image = inject('image');
const prefix = `${PREFIX}-client`;
/** A user-defined network with fixed addresses, as the docs give it (a range Docker's default pools do not use). */
const NETWORK = { name: `${prefix}-net`, subnet: '172.29.57.0/24', unit: '172.29.57.10' };
/** The host-network recipe's unit: its own loopback address on this machine, port 80. */
const HOST_ADDRESS = '127.0.0.7';
const run = promisify(execFile);
const received: Record<string, string> = {};

/** Two sockets of a client on this machine: what they keep, and what the SDK's rule makes them drop. */
class SdkRuleReceiver {
  lidarPackets = 0;
  imuPackets = 0;
  dropped = 0;
  readonly frames = new Set<number>();
  readonly droppedFrom = new Set<string>();
  private constructor(
    private readonly httpAddress: string,
    readonly lidar: Socket,
    readonly imu: Socket,
  ) {
    lidar.on('message', (packet, from) => {
      if (!this.keep(from.address)) return;
      this.lidarPackets++;
      // Lidar packet header: packet type u16, then frame_id u16 (little-endian).
      this.frames.add(packet.readUInt16LE(2));
    });
    imu.on('message', (_packet, from) => {
      if (this.keep(from.address)) this.imuPackets++;
    });
  }

  static async open(httpAddress: string): Promise<SdkRuleReceiver> {
    const bind = () =>
      new Promise<Socket>((resolve) => {
        const socket = createSocket('udp4');
        socket.bind(0, '0.0.0.0', () => resolve(socket));
      });
    return new SdkRuleReceiver(httpAddress, await bind(), await bind());
  }

  private keep(source: string): boolean {
    if (source === this.httpAddress) return true;
    this.dropped++;
    this.droppedFrom.add(source);
    return false;
  }

  close(): void {
    this.lidar.close();
    this.imu.close();
  }

  summary(): string {
    const drops = this.dropped ? `, ${this.dropped} dropped from ${[...this.droppedFrom].join(', ')}` : '';
    return `${this.frames.size} frames (${this.lidarPackets} lidar, ${this.imuPackets} IMU packets)${drops}`;
  }
}

/** Talks HTTP to `base`, points the streams there with `@auto` as a client does, and counts under the SDK's rule. */
async function streamUnderSdkRule(base: string, until: (r: SdkRuleReceiver) => boolean): Promise<SdkRuleReceiver> {
  const receiver = await SdkRuleReceiver.open(new URL(base).hostname);
  try {
    await waitFor(
      async () => (await fetch(`${base}/api/v1/sensor/config`)).status === 200,
      90_000,
      `${base} answering`,
    );
    const set = await fetch(`${base}/api/v1/sensor/config`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        udp_dest: '@auto',
        udp_port_lidar: receiver.lidar.address().port,
        udp_port_imu: receiver.imu.address().port,
      }),
    });
    expect(set.status).toBe(204);
    await waitFor(() => until(receiver), 30_000, `data from ${base} (${receiver.summary()})`);
    return receiver;
  } finally {
    receiver.close();
  }
}

const enough = (r: SdkRuleReceiver) => r.frames.size >= 3 && r.imuPackets >= 10;

async function validateSourceCheck(base: string): Promise<{ status: string; detail: string }> {
  const report = join(mkdtempSync(join(tmpdir(), 'client-validate-')), 'report.json');
  await run(process.execPath, [
    CLI_PATH,
    'validate',
    base,
    '--allow-changes',
    '--udp-timeout',
    '1',
    '--json',
    report,
  ]).catch(() => undefined);
  const { checks } = JSON.parse(readFileSync(report, 'utf8')) as {
    checks: { id: string; status: string; detail: string }[];
  };
  const check = checks.find((c) => c.id === 'udp.source-address');
  if (!check) throw new Error(`no udp.source-address check in ${JSON.stringify(checks.map((c) => c.id))}`);
  return check;
}

async function containerAddress(name: string): Promise<string> {
  return inspect(name, '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}');
}

describe.skipIf(skip !== '')('a real client fed by the Docker image, as the README says', () => {
  beforeAll(() => removeAll(prefix));
  afterAll(async () => {
    await removeAll(prefix);
    console.log(`real-client recipes: ${JSON.stringify(received)}`);
  });

  it("the container's own address: frames arrive from the address the client talks to", async () => {
    const name = `${prefix}-own`;
    await docker(['run', '-d', '--name', name, '-v', `${name}-data:/data`, image]);
    const address = await containerAddress(name);
    const receiver = await streamUnderSdkRule(`http://${address}`, enough);
    expect(receiver.dropped).toBe(0);
    received.containerAddress = `${address}: ${receiver.summary()}`;
    // The start-up log names where the data leaves from.
    expect(await docker(['logs', name])).toContain(`lidar and IMU data leave from ${address}`);
    const check = await validateSourceCheck(`http://${address}`);
    expect(check.status, check.detail).toBe('PASS');
  });

  it('a user-defined network with a fixed address', async () => {
    await docker(['network', 'create', '--subnet', NETWORK.subnet, NETWORK.name]);
    const name = `${prefix}-fixed`;
    await docker(['run', '-d', '--name', name, '--network', NETWORK.name, '--ip', NETWORK.unit, image]);
    const receiver = await streamUnderSdkRule(`http://${NETWORK.unit}`, enough);
    expect(receiver.dropped).toBe(0);
    received.fixedAddress = `${NETWORK.unit}: ${receiver.summary()}`;
  });

  it('--network host on port 80, as the unprivileged user with node-port80', async () => {
    const name = `${prefix}-host`;
    await docker([
      'run',
      '-d',
      '--name',
      name,
      '--network',
      'host',
      '-v',
      `${name}-data:/data`,
      '--entrypoint',
      'node-port80',
      image,
      'dist/cli.js',
      '--host',
      HOST_ADDRESS,
    ]);
    const receiver = await streamUnderSdkRule(`http://${HOST_ADDRESS}`, enough);
    expect(receiver.dropped).toBe(0);
    received.hostNetwork = `${HOST_ADDRESS}:80: ${receiver.summary()}`;
    const status = await docker(['exec', name, 'cat', '/proc/1/status']);
    expect(/^Uid:\s+(\d+)/m.exec(status)?.[1], 'uid of the unit process').toBe('1000');
    // CAP_NET_BIND_SERVICE (bit 10) and nothing else, effective and ambient.
    expect(/^CapEff:\s+(\w+)/m.exec(status)?.[1]).toBe('0000000000000400');
    expect(/^CapAmb:\s+(\w+)/m.exec(status)?.[1]).toBe('0000000000000400');
  });

  it('a published port (-p) loses every datagram under the SDK rule, and the validator says why', async () => {
    const name = `${prefix}-published`;
    await docker(['run', '-d', '--name', name, '-p', '127.0.0.1::80', image]);
    const base = `http://127.0.0.1:${await publishedPort(name)}`;
    const address = await containerAddress(name);
    // The data does arrive, from the container's own address: the rule drops all of it.
    const receiver = await streamUnderSdkRule(base, (r) => r.dropped >= 200);
    expect(receiver.lidarPackets + receiver.imuPackets).toBe(0);
    expect([...receiver.droppedFrom]).toEqual([address]);
    received.publishedPort = `${base}: ${receiver.summary()}`;
    const check = await validateSourceCheck(base);
    expect(check.status).toBe('FAIL');
    expect(check.detail).toContain(`HTTP to 127.0.0.1, UDP from ${address}`);
  });
});
