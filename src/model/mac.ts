/**
 * What follows from a unit's Ethernet address: the MAC of a simulated unit, its IPv6 link-local
 * address and its PTP clock identity. Pure functions; MACs are "aa:bb:cc:dd:ee:ff" strings.
 */

/**
 * The MAC of a simulated unit: a locally administered unicast prefix (0x02), so it can never be a
 * vendor's address, followed by the 40-bit serial number — unique per serial and reversible.
 */
export function macFromSerial(serial: bigint): string {
  const bytes = [0x02];
  for (let shift = 32n; shift >= 0n; shift -= 8n) bytes.push(Number((serial >> shift) & 0xffn));
  return bytes.map((b) => b.toString(16).padStart(2, '0')).join(':');
}

function macBytes(mac: string): number[] {
  const parts = mac.split(':');
  if (parts.length !== 6 || parts.some((p) => !/^[0-9a-fA-F]{2}$/.test(p)))
    throw new Error(`not a MAC address: ${JSON.stringify(mac)}`);
  return parts.map((p) => parseInt(p, 16));
}

/** Modified EUI-64 interface identifier (RFC 4291): ff:fe in the middle, universal/local bit flipped. */
export function ipv6LinkLocalFromMac(mac: string): string {
  const b = macBytes(mac);
  const words = [
    0xfe80,
    0,
    0,
    0,
    ((b[0] ^ 0x02) << 8) | b[1],
    (b[2] << 8) | 0xff,
    (0xfe << 8) | b[3],
    (b[4] << 8) | b[5],
  ];
  return `${formatIpv6(words)}/64`;
}

/** RFC 5952 text form of eight 16-bit words: lower case, the longest run of two or more zero words as "::". */
export function formatIpv6(words: readonly number[]): string {
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < words.length; ) {
    if (words[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < words.length && words[j] === 0) j++;
    if (j - i > bestLength) [bestStart, bestLength] = [i, j - i];
    i = j;
  }
  const hex = words.map((w) => w.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}

/**
 * The PTP clock identity linuxptp derives from the interface MAC (EUI-48 → EUI-64 with ff:fe in the
 * middle), in pmc's notation "bc0fa7.fffe.c48ea8".
 */
export function clockIdentityFromMac(mac: string): string {
  const hex = macBytes(mac).map((b) => b.toString(16).padStart(2, '0'));
  return `${hex.slice(0, 3).join('')}.fffe.${hex.slice(3).join('')}`;
}
