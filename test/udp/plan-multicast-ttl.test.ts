/** The stream plan carries each destination's multicast TTL: udp_multicast_ttl for lidar and IMU, _zm for zone packets. */
import { expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/registry.js';
import { findProduct } from '../../src/model/products.js';
import { planStreams } from '../../src/udp/index.js';

it('gives lidar and IMU udp_multicast_ttl and zone packets udp_multicast_ttl_zm', () => {
  const plan = planStreams(
    {
      ...defaultConfig(),
      udp_dest: '239.1.2.3',
      udp_dest_zm: '239.1.2.4',
      udp_port_zm: 7504,
      udp_multicast_ttl: 5,
      udp_multicast_ttl_zm: 9,
    },
    { initId: 1, product: findProduct('OS-1-32')!, serialNumber: 1n, bindAddress: undefined, timestampOffsetNs: 0n },
  );
  expect([plan?.lidar?.multicastTtl, plan?.imu?.multicastTtl, plan?.zones?.multicastTtl]).toEqual([5, 5, 9]);
});
