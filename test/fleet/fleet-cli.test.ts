/**
 * `lidar-sensor fleet` end to end: 8 units (two from a fleet file) on their own loopback addresses,
 * each streaming to its own receiver; one unit restarted and reconfigured and another one killed
 * while the others keep streaming untouched; the supervisor's aggregated /metrics read back with a
 * Prometheus text parser.
 */
import type { ChildProcess } from 'node:child_process';
import dgram from 'node:dgram';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/cli-process.js';
import { startFleet } from '../helpers/fleet-process.js';
import { parseMetrics, samples, sampleValue } from '../helpers/prometheus.js';
import { decodeLidarPacket, lidarInitId } from '../udp/decoder/lidar-decoder.js';
import { waitFor } from '../helpers/poll.js';

const UNITS = 8;
const BASE = [127, 0, 15, 1];
const address = (i: number) => `127.0.15.${BASE[3] + i}`;
const PROFILE = 'RNG19_RFL8_SIG16_NIR16';
/** 512x10: 32 packets per frame, 320 per second. */
const NOMINAL_PPS = 320;

/** Counts what one unit sends, keeping only the last datagram and the set of sources. */
class CountingReceiver {
  count = 0;
  last: Buffer | null = null;
  readonly sources = new Set<string>();
  readonly byInitId = new Map<number, number>();
  readonly measurementIds = new Set<number>();
  private constructor(private readonly socket: dgram.Socket) {
    socket.on('message', (data, rinfo) => {
      this.count++;
      this.last = data;
      this.sources.add(rinfo.address);
      const initId = lidarInitId(data);
      this.byInitId.set(initId, (this.byInitId.get(initId) ?? 0) + 1);
      this.measurementIds.add(data.readUInt16LE(32 + 8));
    });
  }

  static async open(): Promise<CountingReceiver> {
    const socket = dgram.createSocket('udp4');
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    socket.setRecvBufferSize(4 * 1024 * 1024);
    return new CountingReceiver(socket);
  }

  get port(): number {
    return this.socket.address().port;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.socket.close(() => resolve()));
  }
}

interface UnitListing {
  name: string;
  url: string;
  address: string;
  state: string;
  restarts: number;
  pid: number | null;
}

async function json<T>(url: string, init?: RequestInit): Promise<T> {
  const response = await fetch(url, init);
  if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

async function configure(url: string, body: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${url}/api/v1/sensor/config?reinit=true&persist=true`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status, await response.text()).toBe(204);
}

const sensorInfo = (url: string) =>
  json<{ prod_sn: string; initialization_id: number; status: string }>(`${url}/api/v1/sensor/metadata/sensor_info`);

describe('lidar-sensor fleet (8 units, child processes)', () => {
  let fleet: ChildProcess;
  let dataRoot: string;
  let endpoint: string;
  let units: UnitListing[];
  /** lidar_mode of each unit as the fleet started it, before the test configures the streams. */
  let initialModes: string[];
  const receivers: CountingReceiver[] = [];

  beforeAll(async () => {
    dataRoot = mkdtempSync(join(tmpdir(), 'fleet-test-'));
    const port = await freePort(address(0));
    const file = join(dataRoot, 'fleet.yaml');
    writeFileSync(
      file,
      [
        'units:',
        '  - { name: front-left, serial: "122201500101", mode: 2048x10 }',
        '  - { name: front-right, serial: "122201500102", config: { lidar_mode: 512x10 } }',
        '',
      ].join('\n'),
    );
    const started = await startFleet([
      '--file',
      file,
      '--count',
      String(UNITS),
      '--base-address',
      address(0),
      '--port',
      String(port),
      '--data-root',
      dataRoot,
      '--log-level',
      'info',
    ]);
    fleet = started.process;
    endpoint = started.endpoint;
    units = await json<UnitListing[]>(`${endpoint}/units`);
    initialModes = await Promise.all(units.map((u) => json<string>(`${u.url}/api/v1/sensor/config/lidar_mode`)));
    for (let i = 0; i < UNITS; i++) receivers.push(await CountingReceiver.open());
    await Promise.all(
      units.map((u, i) =>
        configure(u.url, {
          udp_dest: '127.0.0.1',
          udp_port_lidar: receivers[i].port,
          udp_port_imu: 0,
          lidar_mode: '512x10',
          udp_profile_lidar: PROFILE,
        }),
      ),
    );
  }, 60_000);

  afterAll(async () => {
    if (fleet && fleet.exitCode === null) {
      const exited = new Promise((resolve) => fleet.once('exit', resolve));
      fleet.kill('SIGTERM');
      await exited;
    }
    await Promise.all(receivers.map((r) => r.close()));
    if (dataRoot) rmSync(dataRoot, { recursive: true, force: true });
  });

  it("runs 8 units with distinct addresses and serials, the file's units with their serial and first-boot mode", async () => {
    expect(units.map((u) => u.name)).toEqual([
      'front-left',
      'front-right',
      'unit-3',
      'unit-4',
      'unit-5',
      'unit-6',
      'unit-7',
      'unit-8',
    ]);
    expect(new Set(units.map((u) => u.address)).size).toBe(UNITS);
    expect(new Set(units.map((u) => u.pid)).size).toBe(UNITS);
    const infos = await Promise.all(units.map((u) => sensorInfo(u.url)));
    expect(new Set(infos.map((i) => i.prod_sn)).size).toBe(UNITS);
    expect(infos.slice(0, 2).map((i) => i.prod_sn)).toEqual(['122201500101', '122201500102']);
    expect(infos.every((i) => i.status === 'RUNNING')).toBe(true);
    expect(initialModes).toEqual(['2048x10', '512x10', ...Array(UNITS - 2).fill('1024x10')]);
  });

  it('streams every unit to its own receiver, from its own address, at a plausible rate', async () => {
    const before = receivers.map((r) => r.count);
    await waitFor(
      () => receivers.every((r, i) => r.count - before[i] >= NOMINAL_PPS),
      20_000,
      'a second of packets from every unit',
    );
    const infos = await Promise.all(units.map((u) => sensorInfo(u.url)));
    const received = receivers.map((r) => r.count);
    // Plausibility, not speed: a receiver never has more than its unit says it sent (read after counting).
    const sent = await Promise.all(
      units.map(async (u) =>
        sampleValue(
          parseMetrics(await (await fetch(`${u.url}/metrics`)).text()),
          'lidar_sensor_udp_packets_sent_total',
          {
            stream: 'lidar',
          },
        ),
      ),
    );
    receivers.forEach((receiver, i) => {
      expect(received[i]).toBeLessThanOrEqual(sent[i]);
      expect([...receiver.sources]).toEqual([units[i].address]);
      const packet = decodeLidarPacket(receiver.last as Buffer, PROFILE, 128);
      expect(packet.footerOk).toBe(true);
      expect(String(packet.serial)).toBe(infos[i].prod_sn);
      expect(packet.initId).toBe(infos[i].initialization_id);
    });
  });

  it('restarts and reconfigures one unit while the others keep streaming untouched', async () => {
    const target = 2;
    const others = units.map((_, i) => i).filter((i) => i !== target);
    const initIds = await Promise.all(units.map(async (u) => (await sensorInfo(u.url)).initialization_id));
    const counts = receivers.map((r) => r.count);

    const restart = await fetch(`${units[target].url}/api/v1/system/restart`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    });
    expect(restart.status).toBe(204);
    const rebooted = await waitFor(
      async () => {
        const info = await sensorInfo(units[target].url);
        return info.status === 'RUNNING' && info.initialization_id !== initIds[target] ? info : undefined;
      },
      20_000,
      'the restarted unit to run again',
    );
    await configure(units[target].url, { lidar_mode: '1024x10' });
    const reconfigured = await sensorInfo(units[target].url);
    expect(reconfigured.initialization_id).not.toBe(rebooted.initialization_id);
    // The new run arrives with its init id, and 1024 columns per frame (measurement ids past 511).
    receivers[target].measurementIds.clear();
    await waitFor(
      () =>
        (receivers[target].byInitId.get(reconfigured.initialization_id) ?? 0) > 64 &&
        Math.max(...receivers[target].measurementIds) > 511,
      15_000,
      'packets of the reconfigured unit',
    );

    for (const i of others) {
      expect((await sensorInfo(units[i].url)).initialization_id).toBe(initIds[i]);
      expect(receivers[i].count).toBeGreaterThan(counts[i]);
      expect([...receivers[i].byInitId.keys()]).toEqual([initIds[i]]);
    }
  });

  it('starts a killed unit again; the others never notice', async () => {
    const target = 5;
    const others = units.map((_, i) => i).filter((i) => i !== target);
    const initIds = await Promise.all(units.map(async (u) => (await sensorInfo(u.url)).initialization_id));
    const serial = (await sensorInfo(units[target].url)).prod_sn;
    const counts = receivers.map((r) => r.count);
    process.kill(units[target].pid as number, 'SIGKILL');
    const listing = await waitFor(
      async () => {
        const now = (await json<UnitListing[]>(`${endpoint}/units`))[target];
        return now.restarts === 1 && now.state === 'running' ? now : undefined;
      },
      20_000,
      'the supervisor to start the unit again',
    );
    expect(listing.pid).not.toBe(units[target].pid);
    const info = await sensorInfo(units[target].url);
    // Same data directory: same serial and the persisted stream configuration; a new initialization.
    expect(info.prod_sn).toBe(serial);
    expect(info.initialization_id).not.toBe(initIds[target]);
    await waitFor(
      () => (receivers[target].byInitId.get(info.initialization_id) ?? 0) > 32,
      15_000,
      'packets of the restarted process',
    );
    for (const i of others) {
      expect((await sensorInfo(units[i].url)).initialization_id).toBe(initIds[i]);
      expect(receivers[i].count).toBeGreaterThan(counts[i]);
    }
  });

  it("aggregates every unit's /metrics with a unit label", async () => {
    const response = await fetch(`${endpoint}/metrics`);
    expect(response.status).toBe(200);
    const families = parseMetrics(await response.text());
    const serials = samples(families, 'lidar_sensor_info').map((s) => s.labels?.serial);
    expect(new Set(serials).size).toBe(UNITS);
    for (const [i, unit] of units.entries()) {
      expect(sampleValue(families, 'lidar_fleet_unit_up', { unit: unit.name })).toBe(1);
      expect(sampleValue(families, 'lidar_fleet_unit_restarts_total', { unit: unit.name })).toBe(i === 5 ? 1 : 0);
      expect(sampleValue(families, 'lidar_sensor_status', { unit: unit.name, status: 'RUNNING' })).toBe(1);
      expect(
        sampleValue(families, 'lidar_sensor_udp_packets_sent_total', { unit: unit.name, stream: 'lidar' }),
      ).toBeGreaterThan(0);
      expect(sampleValue(families, 'lidar_sensor_udp_packets_sent_total', { unit: unit.name, stream: 'imu' })).toBe(0);
    }
    // The restarted unit counted its restart and the reinits that followed (boot, restart, reconfiguration).
    expect(sampleValue(families, 'lidar_sensor_restarts_total', { unit: units[2].name })).toBe(1);
    expect(sampleValue(families, 'lidar_sensor_reinits_total', { unit: units[2].name })).toBeGreaterThanOrEqual(3);
  });
});
