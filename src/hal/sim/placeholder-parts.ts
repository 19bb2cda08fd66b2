/**
 * Parts of the simulated HAL that their own work items replace (data plane, time, network,
 * telemetry, power, firmware). Delete an entry here when its real implementation is wired in.
 */
import type { FirmwareHal, LidarHal, NetworkHal, PowerHal, TimeHal } from '../types.js';
import type { SimHalOptions } from './index.js';

const POWER_ON_NS = process.hrtime.bigint();

export function createPlaceholderParts(_options: SimHalOptions): {
  lidar: LidarHal;
  network: NetworkHal;
  time: TimeHal;
  power: PowerHal;
  firmware: FirmwareHal;
} {
  const close = async () => {};
  return {
    lidar: { apply: async () => {}, setAlertFlags: () => {}, close },
    network: { close },
    time: { timestampOffsetNs: () => -POWER_ON_NS, close },
    power: { close },
    firmware: { close },
  };
}
