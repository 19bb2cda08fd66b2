/**
 * The image as a user runs it: `docker run` with a published port and a data volume. Health, port 80 as a
 * non-root user, lidar packets across the bridge to this machine, state that survives `docker restart` and a new
 * container, a clean `docker stop`, and a read-only root file system.
 */
import { createSocket, type Socket } from 'node:dgram';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { docker, inspect, PREFIX, publishedPort, removeAll } from './docker.js';
import { waitFor } from '../helpers/poll.js';

const skip = inject('dockerSkip');
const image = inject('image');
const prefix = `${PREFIX}-run`;
const volume = `${prefix}-data`;
const figures: Record<string, string> = {};

/** `docker run` of the image on the test's volume; `serial` undefined: the unit takes the one its data holds. */
async function runUnit(
  name: string,
  extra: string[] = [],
  serial: string | undefined = '122201000777',
): Promise<string> {
  await docker([
    'run',
    '-d',
    '--name',
    name,
    '-p',
    '127.0.0.1::80',
    '-v',
    `${volume}:/data`,
    '--health-interval',
    '1s',
    '--health-timeout',
    '30s',
    ...(serial ? ['-e', `SENSOR_SERIAL=${serial}`] : []),
    ...extra,
    image,
  ]);
  return name;
}

async function untilHealthy(name: string): Promise<number> {
  const started = Date.now();
  await waitFor(async () => (await inspect(name, '{{.State.Health.Status}}')) === 'healthy', 90_000, `${name} healthy`);
  return (Date.now() - started) / 1000;
}

async function api(name: string, path: string, init?: RequestInit): Promise<Response> {
  return fetch(`http://127.0.0.1:${await publishedPort(name)}/api/v1${path}`, init);
}

async function json<T>(name: string, path: string): Promise<T> {
  const response = await api(name, path);
  expect(response.status, `GET ${path}`).toBe(200);
  return (await response.json()) as T;
}

interface SensorInfo {
  prod_sn: string;
  initialization_id: number;
  status: string;
}

/** This machine's address on the container's bridge network: where its packets to the host go. */
async function bridgeGateway(container: string): Promise<string> {
  return inspect(container, '{{range .NetworkSettings.Networks}}{{.Gateway}}{{end}}');
}

describe.skipIf(skip !== '')('the container image', () => {
  let receiver: Socket | undefined;

  beforeAll(() => removeAll(prefix));
  afterAll(async () => {
    receiver?.close();
    await removeAll(prefix);
    console.log(`container figures: ${JSON.stringify(figures)}`);
  });

  it('becomes healthy and answers on port 80 through a published port, as a non-root user', async () => {
    const name = await runUnit(`${prefix}-1`);
    figures.healthySeconds = (await untilHealthy(name)).toFixed(1);
    const info = await json<SensorInfo>(name, '/sensor/metadata/sensor_info');
    expect(info.prod_sn).toBe('122201000777');
    expect(info.status).toBe('RUNNING');
    expect(await inspect(name, '{{index .Config.ExposedPorts}}')).toContain('80/tcp');
    const status = await docker(['exec', name, 'cat', '/proc/1/status']);
    expect(/^Uid:\s+(\d+)/m.exec(status)?.[1], 'uid of the unit process').not.toBe('0');
    expect(await docker(['exec', name, 'id', '-un'])).toBe('node');
    // The start-up log names the address the unit really listens on (all of the container's addresses).
    expect(await docker(['logs', name])).toMatch(/0\.0\.0\.0:80|\[::\]:80/);
  });

  it('sends lidar packets that reach a receiver on this machine through the bridge', async () => {
    const name = `${prefix}-1`;
    const gateway = await bridgeGateway(name);
    receiver = createSocket('udp4');
    const packets: Buffer[] = [];
    receiver.on('message', (packet) => packets.push(packet));
    await new Promise<void>((resolve) => receiver!.bind(0, gateway, resolve));
    const port = receiver.address().port;
    // The API connection arrives through the bridge, so "@auto" is this machine's address on it.
    const set = await api(name, '/sensor/config', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ udp_dest: '@auto', udp_port_lidar: port, udp_port_imu: 0 }),
    });
    expect(set.status).toBe(204);
    const config = await json<{ udp_dest: string }>(name, '/sensor/config');
    expect(config.udp_dest).toBe(gateway);
    await waitFor(() => packets.length >= 64, 30_000, 'lidar packets across the bridge');
    const info = await json<SensorInfo>(name, '/sensor/metadata/sensor_info');
    const format = await json<{ columns_per_packet: number; pixels_per_column: number }>(
      name,
      '/sensor/metadata/lidar_data_format',
    );
    const last = packets.at(-1)!;
    // Standard header: packet type 1, init id u24 at 4, serial u40 at 7 (little-endian).
    expect(last.readUInt16LE(0)).toBe(1);
    expect(last.readUIntLE(4, 3)).toBe(info.initialization_id);
    expect(last.readUIntLE(7, 5)).toBe(Number(info.prod_sn));
    expect(format.columns_per_packet).toBe(16);
    figures.packetsReceived = String(packets.length);
  });

  it('keeps user data, serial and configuration across docker restart and a new container', async () => {
    const name = `${prefix}-1`;
    const written = await api(name, '/user/data', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify('calibrated on rig 7'),
    });
    expect(written.status).toBe(204);
    const persisted = await api(name, '/sensor/config?persist=true', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ lidar_mode: '512x10', udp_dest: '', udp_port_lidar: 7502, udp_port_imu: 7503 }),
    });
    expect(persisted.status).toBe(204);
    const expectState = async (unit: string): Promise<void> => {
      expect(await json<string>(unit, '/user/data')).toBe('calibrated on rig 7');
      expect((await json<SensorInfo>(unit, '/sensor/metadata/sensor_info')).prod_sn).toBe('122201000777');
      expect((await json<{ lidar_mode: string }>(unit, '/sensor/config')).lidar_mode).toBe('512x10');
    };
    await docker(['restart', name]);
    await untilHealthy(name);
    await expectState(name);
    await docker(['rm', '-f', name]);
    // A new container on the same volume, without SENSOR_SERIAL: the serial comes from the data.
    await runUnit(`${prefix}-2`, [], undefined);
    await untilHealthy(`${prefix}-2`);
    await expectState(`${prefix}-2`);
  });

  it('stops within 5 s on docker stop, with exit code 0', async () => {
    const name = `${prefix}-2`;
    const started = Date.now();
    // Docker kills (exit code 137) what has not ended 5 s after SIGTERM: exit code 0 means it ended in time.
    await docker(['stop', '--time', '5', name]);
    figures.stopSeconds = ((Date.now() - started) / 1000).toFixed(2);
    expect(await inspect(name, '{{.State.ExitCode}}')).toBe('0');
    expect(await inspect(name, '{{.State.OOMKilled}}')).toBe('false');
    await docker(['rm', '-f', name]);
  });

  it('runs with a read-only root file system and least privilege (data volume and a tmpfs only)', async () => {
    const name = await runUnit(`${prefix}-ro`, [
      '--read-only',
      '--tmpfs',
      '/tmp',
      '--cap-drop',
      'ALL',
      '--security-opt',
      'no-new-privileges',
    ]);
    await untilHealthy(name);
    const written = await api(name, '/user/data', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify('read-only root'),
    });
    expect(written.status).toBe(204);
    expect(await json<string>(name, '/user/data')).toBe('read-only root');
    expect(await inspect(name, '{{.HostConfig.ReadonlyRootfs}}')).toBe('true');
  });
});
