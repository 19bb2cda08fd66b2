/**
 * deploy/swarm on a single-node swarm this test makes: stack.yaml with UNITS=4 (all healthy, each its own serial,
 * hostname and data folder from its task slot, lidar and IMU packets of every unit at a receiver on this machine),
 * a killed task back as the same unit with its data, scaling to 6 and back, then the LAN variant (stack.lan.yaml
 * and setup.sh on a test LAN: every unit at its own address, reached from this machine through setup.sh's shim),
 * and nothing left behind: no container, volume, network, interface or swarm.
 */
import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { waitFor } from '../helpers/poll.js';
import { run } from '../helpers/netns.js';
import { docker, inspect, PREFIX, removeAll } from './docker.js';
import {
  createSwarm,
  gwbridgeGateway,
  healthyUnits,
  type OwnedSwarm,
  removeStack,
  stackObjects,
  swarmState,
  takeDown,
  type Unit,
} from './swarm.js';
import { createTestLan, inRange, LAN_PARENT, removeTestLan, setupScript, type TestLan } from './swarm-lan.js';

const skip = inject('dockerSkip');
/** Every stack, network and volume of this stage starts with this. */
const prefix = `${PREFIX}-swarm`;
const stack = `${prefix}-fleet`;
const service = `${stack}_sensor`;
const lanStack = `${prefix}-lan`;
const lanService = `${lanStack}_sensor`;
const lanNames = { network: `${prefix}-lan-net`, config: `${prefix}-lan-config` };
/** stack.yaml's default SERIAL_BASE: slot N is serial 122201000000 + N. */
const serialOf = (slot: number): string => String(122201000000 + slot);
const figures: Record<string, string> = {};
const seconds = (since: number): string => ((Date.now() - since) / 1000).toFixed(1);

/** `docker stack deploy` as the stack file's header says, with the environment it reads. */
async function deploy(name: string, files: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const args = files.flatMap((file) => ['-c', `deploy/swarm/${file}`]);
  await docker(['stack', 'deploy', ...args, name], 120_000, { LIDAR_SENSOR_IMAGE: inject('image'), ...env });
}

/** A request to a unit's API from this machine. */
async function api(address: string | undefined, path: string, init: RequestInit = {}): Promise<Response> {
  if (!address) throw new Error(`no address to reach the unit at (${path})`);
  return fetch(`http://${address}/api/v1${path}`, {
    ...init,
    headers: { 'content-type': 'application/json' },
    // Generous: a unit that streams on a loaded 2-core machine can take many seconds to answer.
    signal: AbortSignal.timeout(60_000),
  });
}

async function json<T>(address: string | undefined, path: string): Promise<T> {
  const response = await api(address, path);
  expect(response.status, `GET ${path} at ${address}`).toBe(200);
  return (await response.json()) as T;
}

const serialAt = async (address: string | undefined): Promise<string> =>
  (await json<{ prod_sn: string }>(address, '/sensor/metadata/sensor_info')).prod_sn;

async function putUserData(address: string | undefined, text: string): Promise<void> {
  const response = await api(address, '/user/data', { method: 'PUT', body: JSON.stringify(text) });
  expect(response.status, `PUT /user/data at ${address}`).toBe(204);
}

/** The unit's identity as the outside sees it: slot, serial through its API, hostname of its container. */
async function expectIdentity(unit: Unit, address = unit.address): Promise<void> {
  expect(await serialAt(address), `serial of slot ${unit.slot}`).toBe(serialOf(unit.slot));
  expect(await inspect(unit.container, '{{.Config.Hostname}}')).toBe(`sensor-${unit.slot}`);
}

/**
 * Points every unit's streams at receivers bound to `bindAddress` (`udp_dest: "@auto"`: the address the
 * request came from) and waits for lidar packets carrying each unit's serial from that unit's address, and IMU
 * packets from each; then turns the streams off again. Returns packets per unit, lidar and IMU.
 */
async function expectStreams(targets: { slot: number; address: string }[], bindAddress: string): Promise<string> {
  const open = async (): Promise<Socket> => {
    const socket = createSocket('udp4');
    await new Promise<void>((resolve) => socket.bind(0, bindAddress, resolve));
    return socket;
  };
  const [lidar, imu] = [await open(), await open()];
  const serialBySource = new Map(targets.map((t) => [t.address, serialOf(t.slot)]));
  const lidarCount = new Map<string, number>();
  const imuCount = new Map<string, number>();
  const wrong: string[] = [];
  lidar.on('message', (packet: Buffer, from: RemoteInfo) => {
    const serial = packet.length > 32 && packet.readUInt16LE(0) === 1 ? String(packet.readUIntLE(7, 5)) : '?';
    if (serial !== serialBySource.get(from.address)) wrong.push(`${serial} from ${from.address}`);
    else lidarCount.set(serial, (lidarCount.get(serial) ?? 0) + 1);
  });
  imu.on('message', (packet: Buffer, from: RemoteInfo) => {
    // LEGACY IMU packet: 48 bytes, acceleration z about 1 g at rest (bytes 32-35).
    if (packet.length === 48 && Math.abs(packet.readFloatLE(32) - 1) < 0.2)
      imuCount.set(from.address, (imuCount.get(from.address) ?? 0) + 1);
  });
  const streams = (udp_dest: string) => ({
    udp_dest,
    udp_port_lidar: lidar.address().port,
    udp_port_imu: imu.address().port,
  });
  try {
    await Promise.all(
      targets.map(async (target) => {
        const set = await api(target.address, '/sensor/config', {
          method: 'POST',
          body: JSON.stringify(streams('@auto')),
        });
        expect(set.status).toBe(204);
        expect((await json<{ udp_dest: string }>(target.address, '/sensor/config')).udp_dest).toBe(bindAddress);
      }),
    );
    await waitFor(
      () => targets.every((t) => (lidarCount.get(serialOf(t.slot)) ?? 0) >= 64 && (imuCount.get(t.address) ?? 0) >= 10),
      60_000,
      `lidar and IMU packets of every unit at ${bindAddress}`,
    );
    expect(wrong).toEqual([]);
    return targets
      .map((t) => `${serialOf(t.slot)}: ${lidarCount.get(serialOf(t.slot))} lidar, ${imuCount.get(t.address)} imu`)
      .join('; ');
  } finally {
    // The streams off again: four units sending 16 MB/s each would slow down the rest of the stage.
    await Promise.all(
      targets.map(async (target) => {
        const off = await api(target.address, '/sensor/config', {
          method: 'POST',
          body: JSON.stringify({ udp_dest: '' }),
        });
        expect(off.status, `streams off at ${target.address}`).toBe(204);
      }),
    );
    lidar.close();
    imu.close();
  }
}

describe.skipIf(skip !== '')('Docker Swarm (deploy/swarm)', () => {
  let swarm: OwnedSwarm | undefined;
  let lan: TestLan | undefined;
  const stageStarted = Date.now();

  beforeAll(async () => {
    const started = Date.now();
    // Another job's swarm on a shared engine is waited for (up to 10 min) and never touched.
    swarm = await createSwarm(prefix, 600_000);
    // A volume an interrupted run left would hand its slots' data to the new units.
    await removeAll(prefix);
    figures.swarmInitSeconds = seconds(started);
  });

  afterAll(async () => {
    if (swarm) await takeDown(swarm, prefix).catch((error: unknown) => console.log(`swarm take-down: ${error}`));
    removeTestLan();
    figures.stageSeconds = seconds(stageStarted);
    console.log(`swarm figures: ${JSON.stringify(figures)}`);
  });

  describe('stack.yaml alone (overlay network)', () => {
    it('deploys UNITS=4 units, all healthy, each with serial, hostname and data folder of its task slot', async () => {
      const started = Date.now();
      await deploy(stack, ['stack.yaml'], { UNITS: '4' });
      const running = await healthyUnits(service, 4);
      figures.deployToHealthySeconds = seconds(started);
      expect(running.map((u) => u.slot)).toEqual([1, 2, 3, 4]);
      for (const unit of running) await expectIdentity(unit);
      const folders = await docker(['exec', running[0].container, 'ls', '/data']);
      expect(folders.split('\n').sort()).toEqual(['slot-1', 'slot-2', 'slot-3', 'slot-4']);
      // On the stack's network a unit answers to its hostname: the name a client container uses.
      const onNetwork = `{{with index .NetworkSettings.Networks "${stack}_default"}}{{.IPAddress}}{{end}}`;
      const resolved = await docker(['exec', running[3].container, 'getent', 'ahostsv4', 'sensor-1']);
      expect(resolved.split(/\s+/)[0]).toBe(await inspect(running[0].container, onNetwork));
    });

    it("sends every unit's lidar and IMU packets to a receiver on this machine", async () => {
      const running = await healthyUnits(service, 4);
      const targets = running.map((u) => ({ slot: u.slot, address: u.address ?? '' }));
      figures.overlayPackets = await expectStreams(targets, await gwbridgeGateway());
    });

    it('replaces a killed task with the same unit: slot, serial, hostname, configuration and user data', async () => {
      const victim = (await healthyUnits(service, 4)).find((u) => u.slot === 2)!;
      const note = `slot 2 of ${stack}, written ${new Date().toISOString()}`;
      await putUserData(victim.address, note);
      const persisted = await api(victim.address, '/sensor/config?persist=true', {
        method: 'POST',
        body: JSON.stringify({ lidar_mode: '512x10' }),
      });
      expect(persisted.status).toBe(204);
      const started = Date.now();
      await docker(['kill', victim.container]);
      const running = await healthyUnits(service, 4, (now) =>
        now.some((t) => t.slot === 2 && t.container !== victim.container),
      );
      const replaced = running.find((u) => u.slot === 2)!;
      figures.taskReplacementSeconds = seconds(started);
      await expectIdentity(replaced);
      expect(await json<string>(replaced.address, '/user/data')).toBe(note);
      expect((await json<{ lidar_mode: string }>(replaced.address, '/sensor/config')).lidar_mode).toBe('512x10');
    });

    it('scales to 6: two new units, slots 5 and 6, with new identities', async () => {
      const started = Date.now();
      await docker(['service', 'scale', '--detach', `${service}=6`]);
      const six = await healthyUnits(service, 6);
      figures.scaleTo6Seconds = seconds(started);
      // Swarm fills the lowest free slots: the new units are slots 5 and 6, with new serials.
      expect(six.map((u) => u.slot)).toEqual([1, 2, 3, 4, 5, 6]);
      for (const unit of six) {
        await expectIdentity(unit);
        await putUserData(unit.address, `unit ${unit.slot}`);
      }
    });

    it('scales back to 4 and up again: no identity moves to another unit or is lost', async () => {
      let started = Date.now();
      await docker(['service', 'scale', '--detach', `${service}=4`]);
      const four = await healthyUnits(service, 4);
      figures.scaleTo4Seconds = seconds(started);
      // Which two slots go is Swarm's choice (tasks on the most loaded nodes first, then any): its documentation
      // promises none. Every unit left is still the sensor of its slot, with its data.
      const kept = four.map((u) => u.slot);
      figures.slotsKeptAt4 = kept.join(',');
      expect(new Set(kept).size).toBe(4);
      for (const unit of four) {
        await expectIdentity(unit);
        expect(await json<string>(unit.address, '/user/data')).toBe(`unit ${unit.slot}`);
      }

      // Scaling up again fills the free slots: the units that went come back as themselves, with their data.
      started = Date.now();
      await docker(['service', 'scale', '--detach', `${service}=6`]);
      const again = await healthyUnits(service, 6);
      figures.scaleBackTo6Seconds = seconds(started);
      expect(again.map((u) => u.slot)).toEqual([1, 2, 3, 4, 5, 6]);
      for (const unit of again) {
        await expectIdentity(unit);
        expect(await json<string>(unit.address, '/user/data')).toBe(`unit ${unit.slot}`);
      }
      started = Date.now();
      await removeStack(stack);
      figures.stackRmSeconds = seconds(started);
    }, 900_000);
  });

  describe('stack.yaml + stack.lan.yaml (every unit at its own address on a LAN)', () => {
    it('setup.sh creates the macvlan network, and this machine reaches every unit at its LAN address', async () => {
      lan = createTestLan(lanNames);
      expect(await setupScript(lan)).toContain(`${lanNames.network}: units on ${LAN_PARENT}`);
      expect(await inspect(lanNames.network, '{{.Driver}} {{.Scope}} {{.ConfigFrom.Network}}')).toBe(
        `macvlan swarm ${lanNames.config}`,
      );
      const started = Date.now();
      await deploy(lanStack, ['stack.yaml', 'stack.lan.yaml'], { UNITS: '2', LAN_NETWORK: lanNames.network });
      const running = await healthyUnits(lanService, 2);
      figures.lanDeployToHealthySeconds = seconds(started);
      const targets: { slot: number; address: string }[] = [];
      for (const unit of running) {
        const address = await inspect(
          unit.container,
          `{{with index .NetworkSettings.Networks "${lanNames.network}"}}{{.IPAddress}}{{end}}`,
        );
        expect(inRange(address, lan.ipRange), `${address} in ${lan.ipRange}`).toBe(true);
        // Port 80 at the unit's own LAN address, from this machine through the shim.
        await expectIdentity(unit, address);
        targets.push({ slot: unit.slot, address });
      }
      expect(new Set(targets.map((t) => t.address)).size).toBe(2);
      figures.lanAddresses = targets.map((t) => t.address).join(',');
      figures.lanPackets = await expectStreams(targets, lan.shim);
    });

    it('goes away with docker stack rm and setup.sh --remove', async () => {
      await removeStack(lanStack);
      if (!lan) throw new Error('no test LAN');
      await setupScript(lan, ['--remove']);
      const networks = await docker(['network', 'ls', '--format', '{{.Name}}']);
      expect(networks).not.toContain(lanNames.config);
      expect(networks).not.toContain(lanNames.network);
    });
  });

  it('leaves no container, volume, network, interface or swarm behind', async () => {
    if (!swarm) throw new Error('no swarm');
    const started = Date.now();
    await takeDown(swarm, prefix);
    removeTestLan();
    figures.takeDownSeconds = seconds(started);
    expect(await swarmState()).toBe('inactive');
    for (const name of [stack, lanStack]) expect(await stackObjects(name)).toEqual([]);
    const named = await Promise.all([
      docker(['ps', '-a', '--format', '{{.Names}}']),
      docker(['volume', 'ls', '--format', '{{.Name}}']),
      docker(['network', 'ls', '--format', '{{.Name}}']),
    ]);
    const left = named.flatMap((text) => text.split('\n')).filter((name) => name.startsWith(prefix));
    expect(left).toEqual([]);
    const networks = named[2].split('\n');
    expect(networks).not.toContain('ingress');
    if (!swarm.hadGwbridge) expect(networks).not.toContain('docker_gwbridge');
    expect(run(['ip', '-br', 'link', 'show'])).not.toContain('lidartest-');
  });
});
