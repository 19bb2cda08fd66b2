import { describe, expect, it } from 'vitest';
import {
  formatIpv4,
  isLinkLocal,
  isLoopbackHost,
  linkLocalFromMac,
  parseCidr,
  parseIpv4,
  parseIpv4Override,
  prefixFromNetmask,
} from '../../src/model/ipv4.js';
import { clockIdentityFromMac, formatIpv6, ipv6LinkLocalFromMac, macFromSerial } from '../../src/model/mac.js';

describe('IPv4 override validation', () => {
  // [input, default prefix, CIDR that will be applied]
  const good: [unknown, number, string][] = [
    ['192.0.2.100/24', 24, '192.0.2.100/24'],
    ['192.0.2.100', 24, '192.0.2.100/24'],
    ['192.0.2.100', 16, '192.0.2.100/16'],
    ['10.1.2.3/8', 24, '10.1.2.3/8'],
    ['172.16.0.1/12', 24, '172.16.0.1/12'],
    ['192.168.1.254/255.255.255.0', 24, '192.168.1.254/24'],
    ['198.51.100.7/32', 24, '198.51.100.7/32'],
    ['203.0.113.0/31', 24, '203.0.113.0/31'],
    ['203.0.113.1/31', 24, '203.0.113.1/31'],
    ['100.64.0.1/10', 24, '100.64.0.1/10'],
    ['1.1.1.1/1', 24, '1.1.1.1/1'],
  ];
  it.each(good)('accepts %j (default prefix /%i) as %s', (input, prefix, cidr) => {
    expect(parseIpv4Override(input, prefix)).toEqual({ ok: true, cidr });
  });

  const bad: [unknown, RegExp][] = [
    ['224.0.0.1/24', /multicast/],
    ['239.255.255.250', /multicast/],
    ['255.255.255.255', /broadcast/],
    ['192.0.2.255/24', /broadcast address of/],
    ['192.0.2.0/24', /network address of/],
    ['127.0.0.1/8', /loopback/],
    ['127.1.2.3', /loopback/],
    ['0.0.0.0', /this network/],
    ['0.0.0.0/0', /this network/],
    ['0.1.2.3/8', /this network/],
    ['169.254.1.1/16', /link-local/],
    ['240.0.0.1/4', /reserved/],
    ['250.1.2.3/24', /reserved/],
    ['8.8.8.8/0', /prefix length of 0/],
    ['192.0.2.100/33', /not an IPv4 address/],
    ['192.0.2.100/', /not an IPv4 address/],
    ['192.0.2.100/-1', /not an IPv4 address/],
    ['192.0.2.100/24/1', /not an IPv4 address/],
    ['192.0.2.100/255.0.255.0', /not an IPv4 address/],
    ['192.0.2.256', /not an IPv4 address/],
    ['192.0.2', /not an IPv4 address/],
    ['192.0.2.1.5', /not an IPv4 address/],
    ['192.000.2.1', /not an IPv4 address/],
    ['01.2.3.4', /not an IPv4 address/],
    [' 192.0.2.1', /not an IPv4 address/],
    ['192.0.2.1 ', /not an IPv4 address/],
    ['0x7f.0.0.1', /not an IPv4 address/],
    ['2001:db8::1/64', /not an IPv4 address/],
    ['sensor.local', /not an IPv4 address/],
    ['', /not an IPv4 address/],
    [3232235876, /JSON string/],
    [null, /got null/],
    [undefined, /got no body/],
    [['192.0.2.100/24'], /got a list/],
    [{ addr: '192.0.2.100/24' }, /got object/],
    [true, /got boolean/],
  ];
  it.each(bad)('refuses %j', (input, reason) => {
    const result = parseIpv4Override(input, 24);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problem).toMatch(reason);
  });
});

describe('IPv4 helpers', () => {
  it('parses strict dotted quads only', () => {
    expect(parseIpv4('192.0.2.1')).toBe(0xc0000201);
    expect(formatIpv4(0xc0000201)).toBe('192.0.2.1');
    expect(parseIpv4('255.255.255.255')).toBe(0xffffffff);
    expect(parseIpv4('1.2.3.04')).toBeUndefined();
    expect(parseCidr('10.0.0.1/255.255.0.0')).toEqual({ address: 0x0a000001, prefix: 16 });
    expect(prefixFromNetmask('255.255.255.128')).toBe(25);
    expect(prefixFromNetmask('255.0.255.0')).toBeUndefined();
  });

  it('derives a stable RFC 3927 link-local address from the MAC', () => {
    const macs = ['02:1c:73:bf:48:bb', 'bc:0f:a7:c4:8e:a8', '00:00:00:00:00:00', 'ff:ff:ff:ff:ff:ff'];
    for (const mac of macs) {
      const cidr = linkLocalFromMac(mac);
      expect(cidr).toBe(linkLocalFromMac(mac));
      const parsed = parseCidr(cidr)!;
      expect(parsed.prefix).toBe(16);
      expect(isLinkLocal(parsed.address)).toBe(true);
      const third = (parsed.address >>> 8) & 0xff;
      expect(third).toBeGreaterThanOrEqual(1);
      expect(third).toBeLessThanOrEqual(254);
    }
    expect(new Set(macs.map(linkLocalFromMac)).size).toBe(macs.length);
  });
});

describe('MAC-derived identities', () => {
  it('puts the 40-bit serial into a locally administered MAC', () => {
    expect(macFromSerial(122201000123n)).toBe('02:1c:73:bf:48:bb');
    expect(macFromSerial(1n)).toBe('02:00:00:00:00:01');
    expect(macFromSerial((1n << 40n) - 1n)).toBe('02:ff:ff:ff:ff:ff');
  });

  it('derives the IPv6 link-local address as the kernel does (EUI-64)', () => {
    // Values the kernel assigned to veth interfaces.
    expect(ipv6LinkLocalFromMac('c2:04:05:cd:1c:fa')).toBe('fe80::c004:5ff:fecd:1cfa/64');
    expect(ipv6LinkLocalFromMac('16:1f:f4:51:fd:79')).toBe('fe80::141f:f4ff:fe51:fd79/64');
    expect(ipv6LinkLocalFromMac('02:00:00:00:00:01')).toBe('fe80::ff:fe00:1/64');
  });

  it('formats IPv6 in RFC 5952 form', () => {
    expect(formatIpv6([0x2001, 0xdb8, 0, 0, 0, 0, 0, 1])).toBe('2001:db8::1');
    expect(formatIpv6([0, 0, 0, 0, 0, 0, 0, 0])).toBe('::');
    expect(formatIpv6([0x2001, 0xdb8, 0, 1, 0, 0, 0, 1])).toBe('2001:db8:0:1::1');
    expect(formatIpv6([1, 2, 3, 4, 5, 6, 7, 8])).toBe('1:2:3:4:5:6:7:8');
  });

  it('derives the PTP clock identity as linuxptp does', () => {
    // ptp4l on a veth with MAC c2:04:05:cd:1c:fa reported clockIdentity c20405.fffe.cd1cfa.
    expect(clockIdentityFromMac('c2:04:05:cd:1c:fa')).toBe('c20405.fffe.cd1cfa');
  });

  it('tells loopback hosts (the control listener, mDNS auto) from all others', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1'])
      expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ['0.0.0.0', '::', '192.0.2.1', '::ffff:192.0.2.1', 'fe80::1', 'sensor.local', ''])
      expect(isLoopbackHost(host), host).toBe(false);
  });
});
