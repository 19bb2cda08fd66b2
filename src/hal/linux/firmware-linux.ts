/**
 * Firmware slots of a real unit. The slot state machine and its SQLite state are the same as on
 * the simulated unit; a hook command connects them to the platform's A/B boot mechanism (U-Boot
 * environment with a boot counter, RAUC, …). The hook is an executable the integrator provides,
 * called without a shell as:
 *
 *   <hook> booted                                   print the slot the bootloader started: a or b
 *   <hook> install <slot> <image-file> <payload-offset> <payload-length> <image_rev>
 *                                                   write the verified payload into the platform's slot
 *   <hook> activate <slot>                          make the next boots try <slot> (with the bootloader's attempt limit)
 *   <hook> mark-good <slot>                         <slot> booted healthy: keep booting it
 *   <hook> reboot                                   reboot the unit into the activated slot (power-linux.ts)
 *
 * Exit status 0 is success; anything else fails the step with the hook's stderr in the log and
 * leaves the slot state as it was before the step. The bootloader counts attempts and falls back
 * on its own; the manager follows what `booted` reports (README "Firmware on a real unit").
 */
import { join } from 'node:path';
import type { BootOutcome, FirmwareHal } from '../firmware.js';
import { buildImage, DEFAULT_MAX_BOOT_ATTEMPTS, SLOT_NAMES, type SlotName } from '../../model/index.js';
import { runCommand } from './run-command.js';

export interface LinuxFirmwareOptions {
  dataDir: string;
  /** The hook executable; without one the unit runs but refuses firmware uploads. */
  hook?: string;
  /** The bootloader's attempt limit, for the record (the bootloader enforces its own). */
  maxBootAttempts?: number;
  /** Called when `booted` fails; the manager then treats the state machine's choice as the truth. */
  onHookError?: (error: unknown) => void;
}

const STEP_TIMEOUT_MS = 60_000;
// Writing a root filesystem to flash takes minutes.
const INSTALL_TIMEOUT_MS = 30 * 60_000;

export function createLinuxFirmware(options: LinuxFirmwareOptions): FirmwareHal {
  const hook = options.hook;
  const run = (args: string[], timeoutMs = STEP_TIMEOUT_MS) => {
    if (!hook) throw new Error('no firmware hook is configured');
    return runCommand([hook, ...args], { timeoutMs });
  };
  return {
    slotDirectory: join(options.dataDir, 'firmware'),
    maxBootAttempts: options.maxBootAttempts ?? DEFAULT_MAX_BOOT_ATTEMPTS,
    installUnavailable: () =>
      hook
        ? undefined
        : 'this unit has no firmware hook configured (--firmware-hook), so it cannot install firmware; see the README section "Firmware on a real unit"',
    // The image the unit was delivered with: a record of its build with no payload (the payload is
    // the root filesystem the bootloader already runs).
    factoryImage: (imageRev) => buildImage(imageRev, Buffer.alloc(0)),
    async bootedSlot(): Promise<SlotName | null> {
      if (!hook) return null;
      try {
        const answer = (await run(['booted'])).trim();
        if (!(SLOT_NAMES as readonly string[]).includes(answer))
          throw new Error(`${hook} booted printed ${JSON.stringify(answer)}, not a or b`);
        return answer as SlotName;
      } catch (error) {
        options.onHookError?.(error);
        return null;
      }
    },
    async install(slot, imagePath, header) {
      await run(
        ['install', slot, imagePath, String(header.payloadOffset), String(header.payloadLength), header.imageRev],
        INSTALL_TIMEOUT_MS,
      );
    },
    async activate(slot) {
      await run(['activate', slot]);
    },
    async markGood(slot) {
      await run(['mark-good', slot]);
    },
    // The operating system of the booted slot is up (this process runs on it).
    bootImage: async (): Promise<BootOutcome> => 'healthy',
    close: async () => {},
  };
}
