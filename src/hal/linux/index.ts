/**
 * A real unit: the system's own tools (iproute2, chrony, linuxptp, the board's A/B firmware
 * mechanism). Parts not specific to Linux (the lidar data path, until a hardware driver exists)
 * come from the simulated HAL.
 */
import type { Hal } from '../types.js';
import { createSimHal, type SimHalOptions } from '../sim/index.js';
import { LinuxTelemetry } from './telemetry-linux.js';

export type LinuxHalOptions = SimHalOptions;

export function createLinuxHal(options: LinuxHalOptions): Hal {
  const sim = createSimHal(options);
  return { ...sim, kind: 'linux', telemetry: new LinuxTelemetry() };
}
