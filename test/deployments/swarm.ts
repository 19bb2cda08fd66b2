/**
 * Docker Swarm as the Swarm stage drives it, through the real `docker` binary: a single-node swarm this test
 * makes (and never one it did not make), the units of a stack by task slot, and taking everything down again.
 *
 * The engine may be shared (a developer's machine, another job): a swarm is the engine's, not a container's, so
 * the stage only ever leaves a swarm whose cluster id it created. The node it creates carries a label naming the
 * test process; a swarm whose label names a process that no longer runs on this machine is a leftover of an
 * interrupted run of this stage, and is taken down. Any other swarm is waited for and then reported, untouched.
 */
import { hostname } from 'node:os';
import { waitFor } from '../helpers/poll.js';
import { docker, removeAll } from './docker.js';

const OWNER_LABEL = 'lidar-deploy-test.owner';
const GWBRIDGE = 'docker_gwbridge';

/** Polls a check that runs `docker` twice a second: often enough, and leaves the CPU to the units. */
export function poll<T>(check: () => Promise<T | undefined | false>, timeoutMs: number, what: string): Promise<T> {
  return waitFor(check, timeoutMs, what, 500);
}

/** inactive, pending, active, error or locked: the engine's part in a swarm. */
export function swarmState(): Promise<string> {
  return docker(['info', '--format', '{{.Swarm.LocalNodeState}}']);
}

function clusterId(): Promise<string> {
  return docker(['info', '--format', '{{.Swarm.Cluster.ID}}']);
}

async function networkExists(name: string): Promise<boolean> {
  return (await docker(['network', 'ls', '--filter', `name=^${name}$`, '-q'])) !== '';
}

function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The owner label of the swarm this engine is in, when an interrupted run of this stage left it. */
async function leftoverOfThisStage(): Promise<boolean> {
  if ((await docker(['info', '--format', '{{.Swarm.ControlAvailable}}'])) !== 'true') return false;
  const owner = await docker(['node', 'inspect', 'self', '--format', `{{index .Spec.Labels "${OWNER_LABEL}"}}`]);
  const [host, pid] = owner.split(':');
  return host === hostname() && Number(pid) > 0 && !processRuns(Number(pid));
}

export interface OwnedSwarm {
  clusterId: string;
  /** Whether docker_gwbridge was there before: `docker swarm init` creates it and `leave` does not remove it. */
  hadGwbridge: boolean;
}

/**
 * `docker swarm init` on an engine that is in no swarm. Another swarm on the engine (another job's) is waited
 * for, up to `waitMs`, and never touched; a leftover of an interrupted run of this stage is taken down first.
 */
export async function createSwarm(stackPrefix: string, waitMs: number): Promise<OwnedSwarm> {
  let told = false;
  const { hadGwbridge } = await poll(
    async () => {
      if ((await swarmState()) !== 'inactive') {
        if (await leftoverOfThisStage()) {
          console.log('swarm stage: taking down the swarm an interrupted run of this stage left');
          await takeDown({ clusterId: await clusterId(), hadGwbridge: false }, stackPrefix);
          return undefined;
        }
        if (!told) console.log('swarm stage: this engine is in a swarm the stage did not create; waiting for it to go');
        told = true;
        throw new Error(
          'this Docker engine is in a swarm the test did not create (it never touches one): `docker swarm leave` it, or run on another engine',
        );
      }
      const had = await networkExists(GWBRIDGE);
      // Fails when another job's `swarm init` came first: then that swarm is waited for.
      await docker(['swarm', 'init', '--advertise-addr', '127.0.0.1']);
      return { hadGwbridge: had };
    },
    waitMs,
    'an engine outside any swarm',
  );
  // From here the swarm is this stage's. (`docker node update` does not know `self`: the node's id.)
  const swarm = { clusterId: await clusterId(), hadGwbridge };
  try {
    const node = await docker(['info', '--format', '{{.Swarm.NodeID}}']);
    await docker(['node', 'update', '--label-add', `${OWNER_LABEL}=${hostname()}:${process.pid}`, node]);
  } catch (error) {
    await takeDown(swarm, stackPrefix);
    throw error;
  }
  return swarm;
}

/** Everything a stack (or a leftover of it) holds on the engine, as "kind name" lines. */
export async function stackObjects(stack: string): Promise<string[]> {
  const label = `label=com.docker.stack.namespace=${stack}`;
  const found = await Promise.all([
    docker(['service', 'ls', '--filter', label, '--format', 'service {{.Name}}']).catch(() => ''),
    docker(['ps', '-a', '--filter', label, '--format', 'container {{.Names}}']),
    docker(['network', 'ls', '--filter', label, '--format', 'network {{.Name}}']),
    docker(['volume', 'ls', '--filter', label, '--format', 'volume {{.Name}}']),
  ]);
  return found.flatMap((text) => text.split('\n')).filter(Boolean);
}

/**
 * `docker stack rm`, then its volumes once its containers are gone (a stack's volumes outlive it). Resolves
 * when nothing of the stack is left.
 */
export async function removeStack(stack: string): Promise<void> {
  await docker(['stack', 'rm', stack]);
  await poll(
    async () => {
      const left = await stackObjects(stack);
      const volumes = left.filter((item) => item.startsWith('volume ')).map((item) => item.slice(7));
      // A volume is still in use until its container is removed: retried on the next poll.
      if (volumes.length > 0 && left.every((item) => !item.startsWith('container ')))
        await docker(['volume', 'rm', ...volumes]).catch(() => '');
      return left.length === 0;
    },
    120_000,
    `nothing left of the stack ${stack}`,
  );
}

/**
 * Takes the stage's stacks and the swarm out of the engine: every stack named `stackPrefix...`, `docker swarm
 * leave --force` (only when the engine is still in the swarm this stage made) and docker_gwbridge when the
 * swarm brought it.
 */
export async function takeDown(swarm: OwnedSwarm, stackPrefix: string): Promise<void> {
  if ((await swarmState()) === 'active' && (await clusterId()) === swarm.clusterId) {
    const stacks = (await docker(['stack', 'ls', '--format', '{{.Name}}'])).split('\n');
    for (const stack of stacks.filter((name) => name.startsWith(stackPrefix))) await removeStack(stack);
    await docker(['swarm', 'leave', '--force']);
  }
  // Its last endpoints go with the swarm, a moment after `leave` returns.
  if (!swarm.hadGwbridge)
    await poll(
      async () => !(await networkExists(GWBRIDGE)) || (await docker(['network', 'rm', GWBRIDGE]).then(() => true)),
      60_000,
      `${GWBRIDGE} removed`,
    );
  await removeAll(stackPrefix);
}

export interface Unit {
  slot: number;
  container: string;
  /** The container's address on docker_gwbridge: this machine reaches its own node's units there. */
  address: string | undefined;
}

interface Task {
  slot: number;
  container: string;
  healthy: boolean;
}

/** The running containers of a service by task slot, and whether each is healthy: one `docker ps`. */
async function tasks(service: string): Promise<Task[]> {
  const lines = await docker([
    'ps',
    '--filter',
    `label=com.docker.swarm.service.name=${service}`,
    '--no-trunc',
    '--format',
    '{{.ID}}\t{{.Label "com.docker.swarm.task.name"}}\t{{.Status}}',
  ]);
  return lines
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [container, task, status] = line.split('\t');
      // Task names are <service>.<slot>.<task id>; a status reads "Up 8 seconds (healthy)".
      return { slot: Number(task.split('.').at(-2)), container, healthy: status.endsWith('(healthy)') };
    })
    .sort((a, b) => a.slot - b.slot);
}

/** What Swarm says of a service's tasks (state, error): said when units do not come up. */
function taskHistory(service: string): Promise<string> {
  const format = '{{.Name}} {{.DesiredState}} {{.CurrentState}} {{.Error}}';
  return docker(['service', 'ps', '--no-trunc', '--format', format, service]).catch((error) => String(error));
}

/**
 * Waits until exactly `count` tasks of the service run, all healthy (and `accept` them); returns them by slot with their
 * docker_gwbridge addresses (none for units on a network with its own gateway, as in the LAN variant).
 */
export async function healthyUnits(
  service: string,
  count: number,
  accept: (running: Task[]) => boolean = () => true,
  // Within the deployment tests' 300 s per test, with room for what the test does around it.
  timeoutMs = 240_000,
): Promise<Unit[]> {
  let healthy: Task[];
  try {
    healthy = await poll(
      async () => {
        const running = await tasks(service);
        return running.length === count && running.every((t) => t.healthy) && accept(running) ? running : undefined;
      },
      timeoutMs,
      `${count} healthy units of ${service}`,
    );
  } catch (error) {
    throw new Error(`${(error as Error).message}; swarm's tasks:\n${await taskHistory(service)}`);
  }
  const bridge = JSON.parse(
    await docker(['network', 'inspect', GWBRIDGE, '--format', '{{json .Containers}}']).catch(() => '{}'),
  ) as Record<string, { IPv4Address: string } | undefined>;
  return healthy.map(({ slot, container }) => ({
    slot,
    container,
    address: bridge[container]?.IPv4Address.split('/')[0],
  }));
}

/** This machine's address on docker_gwbridge, where the units' packets to this machine go. */
export function gwbridgeGateway(): Promise<string> {
  return docker(['network', 'inspect', GWBRIDGE, '--format', '{{range .IPAM.Config}}{{.Gateway}}{{end}}']);
}
