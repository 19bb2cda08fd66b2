/**
 * IPv4 addresses and CIDR strings as the network resources use them ("192.0.2.10/24"), and the
 * rules for a static override: a unicast address a host may configure on its interface.
 * Pure functions; addresses are unsigned 32-bit integers inside, dotted quads outside.
 */
import ipaddr from 'ipaddr.js';

export interface Ipv4Cidr {
  /** The address, as an unsigned 32-bit integer. */
  address: number;
  /** Prefix length 0..32. */
  prefix: number;
}

/** Prefix of a bare override address when the interface has no IPv4 address to take it from. */
export const DEFAULT_OVERRIDE_PREFIX = 24;

/**
 * The address as an unsigned integer, or undefined when `text` is not a strict dotted quad: four
 * decimal octets without leading zeros (which some parsers read as octal), nothing around them.
 */
export function parseIpv4(text: string): number | undefined {
  if (!ipaddr.IPv4.isValidFourPartDecimal(text)) return undefined;
  const [a, b, c, d] = ipaddr.IPv4.parse(text).toByteArray();
  return ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;
}

export function formatIpv4(address: number): string {
  return [address >>> 24, (address >>> 16) & 0xff, (address >>> 8) & 0xff, address & 0xff].join('.');
}

export function formatCidr(cidr: Ipv4Cidr): string {
  return `${formatIpv4(cidr.address)}/${cidr.prefix}`;
}

/** The netmask of a prefix length, as an unsigned integer. */
export function prefixMask(prefix: number): number {
  return prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
}

/** The prefix length of a contiguous netmask ("255.255.255.0" → 24), or undefined. */
export function prefixFromNetmask(mask: string): number | undefined {
  if (!ipaddr.IPv4.isValidFourPartDecimal(mask)) return undefined;
  return ipaddr.IPv4.parse(mask).prefixLengthFromSubnetMask() ?? undefined;
}

/** "a.b.c.d/p" (p 0..32, or a dotted netmask) → address and prefix; undefined when malformed. */
export function parseCidr(text: string): Ipv4Cidr | undefined {
  const slash = text.indexOf('/');
  if (slash < 0) return undefined;
  const address = parseIpv4(text.slice(0, slash));
  const prefixText = text.slice(slash + 1);
  const prefix = /^(3[0-2]|[12][0-9]|[0-9])$/.test(prefixText) ? Number(prefixText) : prefixFromNetmask(prefixText);
  if (address === undefined || prefix === undefined) return undefined;
  return { address, prefix };
}

const inBlock = (address: number, block: string, prefix: number) =>
  (address & prefixMask(prefix)) >>> 0 === parseIpv4(block);

export const isLoopback = (address: number) => inBlock(address, '127.0.0.0', 8);

/** A listen or bind host that only this machine reaches: 127.0.0.0/8, ::1 (any spelling), ::ffff:127.x, localhost. */
export function isLoopbackHost(host: string): boolean {
  if (host === 'localhost') return true;
  const v4 = parseIpv4(host.startsWith('::ffff:') ? host.slice('::ffff:'.length) : host);
  if (v4 !== undefined) return isLoopback(v4);
  return ipaddr.IPv6.isValid(host) && ipaddr.IPv6.parse(host).range() === 'loopback';
}
export const isLinkLocal = (address: number) => inBlock(address, '169.254.0.0', 16);
export const isMulticast = (address: number) => inBlock(address, '224.0.0.0', 4);

/**
 * Why `address/prefix` cannot be a unit's static address, or undefined when it can: it must be a
 * unicast address (not "this network" 0/8, loopback, link-local — that one the unit assigns itself —,
 * multicast, the reserved 240/4 or the limited broadcast), and not the network or broadcast
 * address of its own subnet.
 */
export function staticAddressProblem({ address, prefix }: Ipv4Cidr): string | undefined {
  const dotted = formatIpv4(address);
  if (inBlock(address, '0.0.0.0', 8)) return `${dotted} is in 0.0.0.0/8 ("this network"), not a unicast host address`;
  if (isLoopback(address)) return `${dotted} is a loopback address`;
  if (isLinkLocal(address))
    return `${dotted} is a link-local address; the sensor assigns its link-local address itself`;
  if (isMulticast(address)) return `${dotted} is a multicast address`;
  if (address === 0xffffffff) return `${dotted} is the broadcast address`;
  if (inBlock(address, '240.0.0.0', 4)) return `${dotted} is in the reserved block 240.0.0.0/4`;
  if (prefix === 0) return 'a prefix length of 0 leaves no network for the address';
  // /31 (RFC 3021) and /32 have no network or broadcast address of their own.
  if (prefix <= 30) {
    const hostBits = ~prefixMask(prefix) >>> 0;
    if ((address & hostBits) === 0) return `${dotted} is the network address of ${dotted}/${prefix}`;
    if ((address & hostBits) >>> 0 === hostBits) return `${dotted} is the broadcast address of ${dotted}/${prefix}`;
  }
  return undefined;
}

export type OverrideParse = { ok: true; cidr: string } | { ok: false; problem: string };

/**
 * Reads the body of `PUT /api/v1/system/network/ipv4/override`: "192.0.2.100/24", "192.0.2.100/255.255.255.0"
 * or a bare "192.0.2.100", which gets `defaultPrefix`. Answers the CIDR string that will be applied.
 */
/** Why `value` cannot be an IPv4 override at all (not a string); undefined when it is one. */
export function overrideTypeProblem(value: unknown): string | undefined {
  if (typeof value === 'string') return undefined;
  const got =
    value === undefined ? 'no body' : value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value;
  return `the override must be a JSON string holding an IPv4 address such as "192.0.2.100/24"; got ${got}`;
}

export function parseIpv4Override(value: unknown, defaultPrefix: number): OverrideParse {
  if (typeof value !== 'string') return { ok: false, problem: overrideTypeProblem(value) as string };
  const cidr = value.includes('/') ? parseCidr(value) : withPrefix(parseIpv4(value), defaultPrefix);
  if (!cidr)
    return {
      ok: false,
      problem: `${JSON.stringify(value)} is not an IPv4 address with an optional prefix, such as "192.0.2.100/24" or "192.0.2.100"`,
    };
  const problem = staticAddressProblem(cidr);
  if (problem)
    return {
      ok: false,
      problem: `${JSON.stringify(value)} is not a valid unicast IPv4 address for the sensor: ${problem}`,
    };
  return { ok: true, cidr: formatCidr(cidr) };
}

function withPrefix(address: number | undefined, prefix: number): Ipv4Cidr | undefined {
  return address === undefined ? undefined : { address, prefix };
}

/** FNV-1a: a small, stable hash, so a unit always picks the same link-local address. */
function fnv1a(bytes: readonly number[]): number {
  let hash = 0x811c9dc5;
  for (const byte of bytes) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return hash;
}

/**
 * The IPv4 link-local address a unit picks for itself (RFC 3927: 169.254.1.0 – 169.254.254.255,
 * chosen pseudo-randomly, seeded from the MAC so it is the same at every boot), as "169.254.x.y/16".
 */
export function linkLocalFromMac(mac: string): string {
  const hash = fnv1a(mac.split(':').map((h) => parseInt(h, 16)));
  return `169.254.${1 + (hash % 254)}.${(hash >>> 8) & 0xff}/16`;
}
