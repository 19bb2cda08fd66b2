/**
 * A stand-in for a site's LAN, made by the Swarm stage for deploy/swarm/stack.lan.yaml: a veth pair whose host
 * end is the macvlan parent (the node's "LAN interface") and a private /24 that no route of this machine covers,
 * so the units' addresses exist only inside this test. deploy/swarm/setup.sh itself creates the networks and the
 * shim through which this machine reaches its own macvlan units.
 *
 * Why a veth and not a dummy interface: this kernel has no dummy driver (`ip link add ... type dummy`:
 * "Unknown device type"); macvlan on a veth works the same, and a veth is a real Ethernet-like device.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { run } from '../helpers/netns.js';

const execFileAsync = promisify(execFile);

/** Interface names are limited to 15 characters, so these are shorter than the stage's other names. */
export const LAN_PARENT = 'lidartest-lan';
const LAN_PEER = 'lidartest-lanp';
export const LAN_SHIM = 'lidartest-shim';

export interface TestLan {
  subnet: string;
  gateway: string;
  ipRange: string;
  /** This machine's address on the LAN (the shim's). */
  shim: string;
  /** What setup.sh reads. */
  env: NodeJS.ProcessEnv;
}

function toNumber(address: string): number {
  return address.split('.').reduce((value, octet) => value * 256 + Number(octet), 0);
}

function overlaps(a: string, b: string): boolean {
  const range = (cidr: string): [number, number] => {
    const [address, bits = '32'] = cidr.split('/');
    const size = 2 ** (32 - Number(bits));
    const start = Math.floor(toNumber(address) / size) * size;
    return [start, start + size - 1];
  };
  const [a0, a1] = range(a);
  const [b0, b1] = range(b);
  return a0 <= b1 && b0 <= a1;
}

/** The first candidate /24 that no route or address of this machine touches. */
function freeSubnet(): string {
  const used = JSON.parse(run(['ip', '-j', '-4', 'route', 'show', 'table', 'all'])) as { dst: string }[];
  const prefixes = used.map((route) => route.dst).filter((dst) => /^\d+\.\d+\.\d+\.\d+(\/\d+)?$/.test(dst));
  const free = ['10.254.77.0/24', '10.253.78.0/24', '192.168.254.0/24'].find(
    (candidate) => !prefixes.some((prefix) => overlaps(candidate, prefix)),
  );
  if (!free) throw new Error(`every candidate subnet for the test LAN is routed here already: ${prefixes.join(', ')}`);
  return free;
}

/** The veth pair, both ends up (a macvlan child has carrier only while its parent has). */
export function createTestLan(names: { network: string; config: string }): TestLan {
  const subnet = freeSubnet();
  const base = subnet.split('.').slice(0, 3).join('.');
  removeTestLan();
  run(['ip', 'link', 'add', LAN_PARENT, 'type', 'veth', 'peer', 'name', LAN_PEER]);
  run(['ip', 'link', 'set', LAN_PEER, 'up']);
  run(['ip', 'link', 'set', LAN_PARENT, 'up']);
  const lan = { subnet, gateway: `${base}.1`, ipRange: `${base}.64/27`, shim: `${base}.254` };
  return {
    ...lan,
    env: {
      PARENT: LAN_PARENT,
      SUBNET: lan.subnet,
      GATEWAY: lan.gateway,
      IP_RANGE: lan.ipRange,
      SHIM_ADDRESS: `${lan.shim}/32`,
      SHIM_NAME: LAN_SHIM,
      LAN_NETWORK: names.network,
      LAN_CONFIG: names.config,
    },
  };
}

/** deploy/swarm/setup.sh as a user runs it, with the test LAN's settings; `--remove` takes its networks down. */
export async function setupScript(lan: TestLan, args: string[] = []): Promise<string> {
  const { stdout } = await execFileAsync('bash', ['deploy/swarm/setup.sh', ...args], {
    env: { ...process.env, ...lan.env },
    timeout: 60_000,
  });
  return stdout.trim();
}

/** Deletes the veth pair (and with it the shim, a macvlan on it). Safe when it is gone. */
export function removeTestLan(): void {
  try {
    run(['ip', 'link', 'del', LAN_PARENT]);
  } catch {
    // Not there.
  }
}

/** Whether `address` lies in `cidr`. */
export function inRange(address: string, cidr: string): boolean {
  return overlaps(`${address}/32`, cidr);
}
