/**
 * The network interface of a simulated unit: one Ethernet port, link up at 1000 Mbps full duplex,
 * MAC derived from the serial number, hostname `os-<serial>` as real units, a self-assigned
 * link-local address, and as its "DHCP" address the address the server listens on (a wildcard
 * listen address takes the host's first non-loopback IPv4 address).
 *
 * A static override changes the model (ipv4.addr becomes the override), but the process keeps
 * listening where it was: a simulated sensor on a laptop cannot move the laptop's address, and
 * clients would otherwise lose it. Removing the override restores the "DHCP" address.
 */
import { networkInterfaces } from 'node:os';
import {
  formatIpv4,
  ipv6LinkLocalFromMac,
  isLoopback,
  linkLocalFromMac,
  parseIpv4,
  prefixFromNetmask,
} from '../../model/index.js';
import type { LinkFaults } from '../faults.js';
import type { NetworkFacts, NetworkHal, SpeedOverride } from '../network.js';

export interface SimNetworkOptions {
  mac: string;
  serialNumber: string;
  /** The HTTP listen address. */
  listenAddress: string;
}

export class SimNetwork implements NetworkHal {
  private readonly dynamicAddress: string;
  private readonly linkLocal: string;
  private override: string | null = null;
  private speedOverride: SpeedOverride = null;
  private carrier = true;

  /** Fault injection pulls the cable. */
  readonly faults: LinkFaults = {
    setCarrier: (up) => {
      this.carrier = up;
    },
  };

  constructor(private readonly options: SimNetworkOptions) {
    this.dynamicAddress = dynamicAddressFor(options.listenAddress);
    this.linkLocal = linkLocalFromMac(options.mac);
  }

  async facts(): Promise<NetworkFacts> {
    return {
      carrier: this.carrier,
      duplex: 'full',
      ethaddr: this.options.mac,
      hostname: `os-${this.options.serialNumber}`,
      speed: this.speedOverride ?? 1000,
      ipv4: [this.override ?? this.dynamicAddress, this.linkLocal],
      ipv6LinkLocal: ipv6LinkLocalFromMac(this.options.mac),
    };
  }

  async applyIpv4Override(cidr: string | null): Promise<void> {
    this.override = cidr;
  }

  async applySpeedOverride(speed: SpeedOverride): Promise<void> {
    this.speedOverride = speed;
  }

  async close(): Promise<void> {}
}

/** The listen address with the prefix of the host interface that holds it (loopback /8, else /24 when unknown). */
export function dynamicAddressFor(listenAddress: string): string {
  const hostAddresses = Object.values(networkInterfaces())
    .flat()
    .filter((a) => a !== undefined && a.family === 'IPv4');
  const specific = parseIpv4(listenAddress);
  if (specific !== undefined && specific !== 0) {
    const held = hostAddresses.find((a) => a.address === listenAddress);
    const prefix = held ? prefixFromNetmask(held.netmask) : undefined;
    return `${listenAddress}/${prefix ?? (isLoopback(specific) ? 8 : 24)}`;
  }
  const external = hostAddresses.find((a) => !a.internal && !a.address.startsWith('169.254.'));
  if (external?.cidr) return external.cidr;
  return `${formatIpv4(0x7f000001)}/8`;
}
