/**
 * The specific address a unit listens on (`--host 10.77.0.2`), which is also where its mDNS answers and its
 * data leave from. When the unit's own network settings move that address off the machine (the static IPv4
 * override, its removal) or anything else does (a DHCP lease, an operator), it follows the interface to its new
 * address, as a real unit answers on its new address: the override's when there is one, else the interface's
 * global address, else its link-local one.
 * A wildcard listen address (`0.0.0.0`) has nothing to follow; an address still held by the machine (any
 * interface: the simulated unit's, a loopback one) stays where it is.
 */
import { networkInterfaces } from 'node:os';
import { isLinkLocal, parseCidr } from '../model/index.js';
import type { NetworkFacts } from '../hal/index.js';

export interface AddressMove {
  from: string;
  to: string;
  /** Why it moved, for the log. */
  reason: string;
}

const addressOf = (cidr: string) => cidr.split('/')[0];
const isLinkLocalCidr = (cidr: string) => isLinkLocal(parseCidr(cidr)?.address ?? 0);

/** Whether an interface of this machine holds `address` now. */
export function heldByThisMachine(address: string): boolean {
  return Object.values(networkInterfaces()).some((list) => list?.some((a) => a.address === address));
}

export class BoundAddress {
  private address: string | undefined;

  /** `configured`: the specific listen address, or undefined for a wildcard one. */
  constructor(configured: string | undefined) {
    this.address = configured;
  }

  /** The specific address the unit is bound to now, or undefined when it listens on every address. */
  get current(): string | undefined {
    return this.address;
  }

  /**
   * After the interface changed (`facts`, with the `override` now persisted): where the bound address went,
   * when the machine no longer holds it and the interface holds another; else undefined (nothing moves).
   * `cause`: the unit's own reset of its settings, or a change it did not make (DHCP, an operator).
   */
  follow(
    facts: NetworkFacts,
    override: string | null,
    cause: 'reset' | 'interface' = 'reset',
  ): AddressMove | undefined {
    const from = this.address;
    if (from === undefined || heldByThisMachine(from)) return undefined;
    const candidates = [
      ...(override !== null && facts.ipv4.includes(override) ? [override] : []),
      ...facts.ipv4.filter((cidr) => !isLinkLocalCidr(cidr)),
      ...facts.ipv4.filter(isLinkLocalCidr),
    ].map(addressOf);
    const to = candidates.find(heldByThisMachine);
    if (to === undefined) return undefined;
    this.address = to;
    const reason =
      cause === 'interface'
        ? `the interface's addresses changed (not by the unit); it holds ${to}`
        : override !== null && addressOf(override) === to
          ? `the static IPv4 override ${override} replaced it`
          : `the static IPv4 override was removed; the interface's address is ${to}`;
    return { from, to, reason };
  }
}
