import { describe, expect, it } from 'vitest';
import { defaultRouteInterface } from '../../src/hal/linux/default-route.js';

const HEADER = 'Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT';

describe('default route interface (/proc/net/route)', () => {
  it('picks the usable default route with the lowest metric', () => {
    const table = [
      HEADER,
      'wlan0\t00000000\t0102A8C0\t0003\t0\t0\t600\t00000000\t0\t0\t0',
      'eth0\t00000000\t0101A8C0\t0003\t0\t0\t100\t00000000\t0\t0\t0',
      'eth0\t0001A8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0',
      'tun0\t00000000\t00000000\t0000\t0\t0\t0\t00000000\t0\t0\t0',
    ].join('\n');
    expect(defaultRouteInterface(table)).toBe('eth0');
  });

  it('is undefined without a default route', () => {
    expect(
      defaultRouteInterface([HEADER, 'eth0\t0001A8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0'].join('\n')),
    ).toBeUndefined();
    expect(defaultRouteInterface(HEADER)).toBeUndefined();
  });
});
