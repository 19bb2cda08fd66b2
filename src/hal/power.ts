/**
 * Restarting the unit. The device core first answers the request, then calls `reboot`.
 * sim: the process is the unit; the core simulates the reboot in-process and this part only
 * says so. linux: the process exits with RESTART_EXIT_CODE and the service manager starts it
 * again (deploy/lidar-sensor.service), or runs the platform's reboot command.
 */

/** Why the unit reboots: a user restart, or the reboot into a freshly installed firmware image. */
export type RebootReason = 'restart' | 'firmware-update';

/** Exit status meaning "restart me" (EX_TEMPFAIL); the systemd unit restarts the service on it. */
export const RESTART_EXIT_CODE = 75;

export interface PowerHal {
  /**
   * 'in-process': the device core simulates the reboot (sim). 'process-exit': `reboot` ends the
   * process and something outside (systemd, the bootloader) brings the unit back (linux).
   */
  readonly rebootMode: 'in-process' | 'process-exit';
  /** linux: ends the process (never resolves). sim: resolves at once; the core does the rest. */
  reboot(reason: RebootReason): Promise<void>;
  close(): Promise<void>;
}
