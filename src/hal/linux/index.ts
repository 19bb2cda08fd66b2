/**
 * A real unit: the system's own tools (iproute2, chrony, linuxptp, hwmon, the board's A/B
 * firmware mechanism). The lidar data path is the simulated emitter until a hardware driver exists.
 */
import type { Hal } from '../types.js';
import type { SimHalOptions } from '../sim/index.js';
import { EmitterStreams } from '../emitter-streams.js';
import { assembleHal } from '../assemble.js';
import { NO_ZONE_HARDWARE } from '../zones.js';
import { LinuxTelemetry } from './telemetry-linux.js';
import { createLinuxFirmware } from './firmware-linux.js';
import { createLinuxPower } from './power-linux.js';
import { createLinuxTimeAndNetwork, type LinuxTimeNetworkOptions } from './time-network-linux.js';

// What the linux HAL's programs in src/main (the root helpers of deploy/*.service and the firmware hook's
// requester) run.
export { requestHook, runSpooledRequests } from './firmware-hook-spool.js';
export { profileInBlock, writeProfileToPtp4lConfig } from './ptp4l-config.js';
export { runCommand } from './run-command.js';

export interface LinuxHalOptions extends SimHalOptions, LinuxTimeNetworkOptions {
  /** The executable connecting firmware slots to the bootloader (src/hal/linux/firmware-linux.ts). */
  firmwareHook?: string;
}

export function createLinuxHal(options: LinuxHalOptions): Hal {
  const onHookError = (error: unknown) => process.emitWarning(`firmware hook: ${(error as Error).message}`);
  return assembleHal('linux', {
    // No lidar hardware driver exists yet: a real unit streams the simulated scene through the same emitter,
    // which also watches the zones in software (there is no zone hardware to hand them to).
    streams: new EmitterStreams(options.alerts, options.log, undefined, NO_ZONE_HARDWARE),
    telemetry: new LinuxTelemetry(),
    ...createLinuxTimeAndNetwork(options),
    power: createLinuxPower({ firmwareHook: options.firmwareHook, onHookError }),
    firmware: createLinuxFirmware({
      dataDir: options.dataDir,
      hook: options.firmwareHook,
      maxBootAttempts: options.firmwareBootAttempts,
      onHookError,
    }),
  });
}
