/**
 * A list of networks (`10.0.0.0/8,192.168.1.7,fd00::/8`) and the test whether a peer address is in it,
 * on Node's own BlockList (node:net), which matches IPv4 and IPv6 prefixes. `--allow-writes-from`.
 */
import { BlockList, isIPv4, isIPv6 } from 'node:net';

export interface AddressList {
  /** The networks as given, normalized (`10.0.0.0/8, 127.0.0.1/32`): for messages and logs. */
  readonly text: string;
  includes(address: string | undefined): boolean;
}

/** Parses `CIDR[,CIDR…]` (a bare address is one host); throws Error naming the first bad entry. */
export function parseAddressList(text: string): AddressList {
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.length === 0) throw new Error('the address list is empty; give at least one CIDR, e.g. 10.0.0.0/8');
  const list = new BlockList();
  const normalized: string[] = [];
  for (const entry of entries) {
    const [address, prefixText, extra] = entry.split('/');
    const family = isIPv4(address) ? 'ipv4' : isIPv6(address) ? 'ipv6' : undefined;
    if (!family || extra !== undefined)
      throw new Error(`${JSON.stringify(entry)} is not an IPv4 or IPv6 address or CIDR`);
    const bits = family === 'ipv4' ? 32 : 128;
    const prefix = prefixText === undefined ? bits : Number(prefixText);
    if (!/^\d{1,3}$/.test(prefixText ?? String(bits)) || prefix > bits)
      throw new Error(`${JSON.stringify(entry)}: the prefix length must be 0..${bits}`);
    list.addSubnet(address, prefix, family);
    normalized.push(`${address}/${prefix}`);
  }
  return {
    text: normalized.join(', '),
    includes(peer) {
      if (peer === undefined) return false;
      // A dual-stack listener reports IPv4 peers as IPv4-mapped IPv6 (::ffff:10.0.0.5).
      const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(peer);
      const address = mapped ? mapped[1] : peer;
      return list.check(address, isIPv4(address) ? 'ipv4' : 'ipv6');
    },
  };
}
