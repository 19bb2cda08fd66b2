/**
 * The Ethernet interface of a real unit.
 * - Which interface: the configured one (--interface), else the one holding the listen address (or,
 *   once the override replaced it, our override), else the interface of the default route
 *   (/proc/net/route), else the first non-loopback one.
 * - Facts: carrier, speed, duplex and MAC from /sys/class/net/<if>; addresses from the kernel
 *   (getifaddrs through os.networkInterfaces, link-local ones included); the OS host name.
 * - Static IPv4 override, with iproute2: the other global IPv4 addresses are removed first (removing
 *   a primary address would take a secondary of the same subnet with it), then the override is
 *   added with the label `<if>:ovr`, which marks it as ours in the kernel itself, so even after a
 *   restart the server knows which address to remove when the override is deleted. Removing it
 *   hands the interface back to dynamic addressing: the optional network hook (--network-hook) is
 *   run so the platform can start its DHCP client, and the RFC 3927 link-local address (derived from
 *   the MAC) is added when the interface has none, so the unit stays reachable without DHCP.
 * - Speed override: ethtool (100 Mbps full duplex without autonegotiation, or autonegotiation again).
 */
import { readdir, readFile } from 'node:fs/promises';
import { hostname, networkInterfaces } from 'node:os';
import type { Logger } from 'pino';
import { isLinkLocal, linkLocalFromMac, parseIpv4 } from '../../model/index.js';
import type { NetworkFacts, NetworkHal, SpeedOverride } from '../network.js';
import { readDefaultRouteInterface } from './default-route.js';
import { runCommand } from './run-command.js';

export interface LinuxNetworkOptions {
  /** The interface to manage; default: see resolveInterface. */
  interface?: string;
  /** The HTTP listen address. */
  listenAddress: string;
  /**
   * Executable run after the addressing mode changes: `<hook> static <if> <cidr>` before the static
   * address is set, `<hook> dynamic <if>` after it was removed (e.g. to stop/start the DHCP client).
   */
  networkHook?: string;
  /** Root of sysfs (default /sys). */
  sysfsRoot?: string;
  log: Logger;
}

interface KernelAddress {
  local: string;
  prefixlen: number;
  scope: string;
  label?: string;
}

/** Linux interface names are at most 15 characters; a label must start with the interface name. */
const MAX_LABEL_LENGTH = 15;

export class LinuxNetwork implements NetworkHal {
  private interfacePromise: Promise<string> | undefined;
  /** The override this process applied, for interfaces whose name leaves no room for the label. */
  private applied: string | null = null;
  /** Aborted by close: a stop never waits on ip, ethtool or the hook (each is bounded anyway). */
  private readonly closing = new AbortController();

  constructor(private readonly options: LinuxNetworkOptions) {}

  /** The managed interface's name (resolved once). */
  interfaceName(): Promise<string> {
    this.interfacePromise ??= resolveInterface(this.options.interface, this.options.listenAddress);
    return this.interfacePromise;
  }

  async mac(): Promise<string> {
    return (await this.sysfs(await this.interfaceName(), 'address')) ?? '00:00:00:00:00:00';
  }

  async facts(): Promise<NetworkFacts> {
    const name = await this.interfaceName();
    const [carrier, speed, duplex, mac] = await Promise.all([
      this.sysfs(name, 'carrier'),
      this.sysfs(name, 'speed'),
      this.sysfs(name, 'duplex'),
      this.mac(),
    ]);
    // getifaddrs names an IPv4 address by its label, so the override ("<if>:ovr") is listed apart.
    const addresses = Object.entries(networkInterfaces())
      .filter(([key]) => key === name || key.startsWith(`${name}:`))
      .flatMap(([, list]) => list ?? []);
    const speedMbps = Number(speed);
    return {
      carrier: carrier === '1',
      duplex: duplex === 'full' ? 'full' : 'half',
      ethaddr: mac,
      hostname: hostname(),
      speed: Number.isInteger(speedMbps) && speedMbps > 0 ? speedMbps : 0,
      ipv4: addresses.filter((a) => a.family === 'IPv4' && a.cidr).map((a) => a.cidr as string),
      ipv6LinkLocal:
        addresses.find((a) => a.family === 'IPv6' && a.address.toLowerCase().startsWith('fe80:'))?.cidr ?? '',
    };
  }

  async applyIpv4Override(cidr: string | null): Promise<void> {
    const name = await this.interfaceName();
    const label = `${name}:ovr`.length <= MAX_LABEL_LENGTH ? `${name}:ovr` : undefined;
    const addresses = await this.kernelAddresses(name);
    const isOurs = (a: KernelAddress) => (label !== undefined && a.label === label) || cidrOf(a) === this.applied;
    if (cidr !== null) {
      if (
        addresses.some((a) => isOurs(a) && cidrOf(a) === cidr) &&
        addresses.every((a) => a.scope !== 'global' || cidrOf(a) === cidr)
      )
        return;
      await this.runHook(['static', name, cidr]);
      for (const a of addresses) {
        if (a.scope === 'global' && !(isOurs(a) && cidrOf(a) === cidr))
          await this.ip(['addr', 'del', cidrOf(a), 'dev', name]);
      }
      if (!addresses.some((a) => isOurs(a) && cidrOf(a) === cidr)) {
        await this.ip(['addr', 'add', cidr, 'dev', name, ...(label ? ['label', label] : [])]);
      }
      await this.ip(['link', 'set', name, 'up']);
      this.applied = cidr;
      return;
    }
    const ours = addresses.filter(isOurs);
    if (ours.length === 0) return;
    for (const a of ours) await this.ip(['addr', 'del', cidrOf(a), 'dev', name]);
    this.applied = null;
    await this.runHook(['dynamic', name]);
    const remaining = await this.kernelAddresses(name);
    if (!remaining.some((a) => isLinkLocal(parseIpv4(a.local) ?? 0))) {
      await this.ip(['addr', 'add', linkLocalFromMac(await this.mac()), 'dev', name, 'scope', 'link']);
    }
  }

  async applySpeedOverride(speed: SpeedOverride): Promise<void> {
    const name = await this.interfaceName();
    const settings = speed === null ? ['autoneg', 'on'] : ['speed', String(speed), 'duplex', 'full', 'autoneg', 'off'];
    await runCommand(['ethtool', '-s', name, ...settings], { signal: this.closing.signal });
  }

  async close(): Promise<void> {
    this.closing.abort();
  }

  private async kernelAddresses(name: string): Promise<KernelAddress[]> {
    const output = await runCommand(['ip', '-j', '-4', 'addr', 'show', 'dev', name], { signal: this.closing.signal });
    // `ip -j` prints an array of links, each with addr_info (iproute2's JSON output).
    const links = JSON.parse(output) as { addr_info?: KernelAddress[] }[];
    return links.flatMap((l) => l.addr_info ?? []);
  }

  private async ip(args: string[]): Promise<void> {
    await runCommand(['ip', ...args], { signal: this.closing.signal });
    this.options.log.info({ command: `ip ${args.join(' ')}` }, 'network interface changed');
  }

  private async runHook(args: string[]): Promise<void> {
    if (!this.options.networkHook) return;
    try {
      await runCommand([this.options.networkHook, ...args], { timeoutMs: 30_000, signal: this.closing.signal });
    } catch (error) {
      this.options.log.error({ err: error }, 'the network hook failed');
    }
  }

  private async sysfs(name: string, file: string): Promise<string | undefined> {
    try {
      return (await readFile(`${this.options.sysfsRoot ?? '/sys'}/class/net/${name}/${file}`, 'utf8')).trim();
    } catch {
      // carrier and speed are unreadable (EINVAL) while the interface is down.
      return undefined;
    }
  }
}

const cidrOf = (a: KernelAddress) => `${a.local}/${a.prefixlen}`;

/**
 * The configured interface, else the one holding the listen address, else the one holding our override, else the
 * default route's, else the first non-loopback.
 */
export async function resolveInterface(configured: string | undefined, listenAddress: string): Promise<string> {
  const interfaces = networkInterfaces();
  if (configured) return configured;
  for (const [name, addresses] of Object.entries(interfaces)) {
    if (addresses?.some((a) => a.address === listenAddress && !a.internal)) return name;
  }
  // The listen address may be gone because our own override replaced it: the override's label names the interface.
  const overridden = Object.keys(interfaces).find((key) => key.endsWith(':ovr'));
  if (overridden) return overridden.slice(0, -':ovr'.length);
  const byDefaultRoute = await readDefaultRouteInterface();
  if (byDefaultRoute && interfaces[byDefaultRoute]) return byDefaultRoute;
  // Interfaces without any address yet are only listed in sysfs.
  const all = await readdir('/sys/class/net').catch(() => [] as string[]);
  const first = all.sort().find((name) => name !== 'lo' && !interfaces[name]?.some((a) => a.internal));
  if (first) return first;
  throw new Error('no network interface to manage: give one with --interface');
}
