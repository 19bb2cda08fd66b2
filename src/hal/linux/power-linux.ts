/**
 * Restart of a real unit: the process exits with RESTART_EXIT_CODE (75) once the response is
 * sent, and the service manager starts it again (deploy/lidar-sensor.service: Restart=always,
 * RestartForceExitStatus=75). After a firmware upload the unit must boot the other slot, so the
 * firmware hook's `reboot` step runs first (e.g. `systemctl reboot`).
 */
import { RESTART_EXIT_CODE, type PowerHal } from '../power.js';
import { runCommand } from './run-command.js';

export interface LinuxPowerOptions {
  /** The firmware hook (firmware-linux.ts); its `reboot` step reboots into a new image. */
  firmwareHook?: string;
  onHookError?: (error: unknown) => void;
  /** Ends the process; injectable so the decision can be tested without exiting. */
  exit?: (code: number) => void;
}

export function createLinuxPower(options: LinuxPowerOptions = {}): PowerHal {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  return {
    rebootMode: 'process-exit',
    async reboot(reason) {
      if (reason === 'firmware-update' && options.firmwareHook) {
        // If the hook cannot reboot the unit, the restarted process still follows the bootloader.
        await runCommand([options.firmwareHook, 'reboot'], { timeoutMs: 60_000 }).catch((error: unknown) =>
          options.onHookError?.(error),
        );
      }
      exit(RESTART_EXIT_CODE);
    },
    close: async () => {},
  };
}
