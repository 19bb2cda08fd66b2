/**
 * The unit's Ethernet interface: its facts (carrier, speed, duplex, MAC, addresses) and the two
 * settings the HTTP interface changes (static IPv4 override, speed override).
 * sim: a model of one interface (src/hal/sim/network-sim.ts). linux: the real interface through
 * /sys, /proc/net/route, os.networkInterfaces and `ip` (src/hal/linux/network-linux.ts).
 */
import type { LinkFaults } from './faults.js';

export interface NetworkFacts {
  /** Ethernet link up. */
  carrier: boolean;
  duplex: 'half' | 'full';
  /** MAC address, "aa:bb:cc:dd:ee:ff". */
  ethaddr: string;
  hostname: string;
  /** Link speed in Mbps (0 when the link reports none). */
  speed: number;
  /** Every IPv4 address of the interface in CIDR form ("192.0.2.10/24"), link-local ones included, in the kernel's order. */
  ipv4: string[];
  /** The IPv6 link-local address in CIDR form ("fe80::…/64"), or "" when the interface has none. */
  ipv6LinkLocal: string;
}

/** The speed override values: 100 Mbps forced, or null for the normal 1000 Mbps negotiation. */
export type SpeedOverride = 100 | null;

export interface NetworkHal {
  facts(): Promise<NetworkFacts>;
  /**
   * `cidr`: make it the interface's only global IPv4 address (the link-local address stays).
   * `null`: back to dynamic addressing: the static address goes, the platform's DHCP takes over,
   * and the self-assigned link-local address keeps the unit reachable when no DHCP server answers.
   * Idempotent: applying the state the interface already has changes nothing.
   */
  applyIpv4Override(cidr: string | null): Promise<void>;
  /** Force 100 Mbps, or back to normal negotiation. Only T1 product models get here. */
  applySpeedOverride(speed: SpeedOverride): Promise<void>;
  /** The link a fault takes down (sim); absent on a real interface. */
  readonly faults?: LinkFaults;
  close(): Promise<void>;
}
