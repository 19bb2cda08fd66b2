/**
 * Firmware slots of the simulated unit. The server process is the whole unit, so the slot files in
 * the data directory *are* the slots and the slot state machine alone chooses what boots: there is
 * no bootloader to tell. What the simulation adds is time and fault injection:
 * - a trial boot (the first boot of a new image) takes `updateMs`, during which the unit shows UPDATING;
 * - an image whose manifest says `sim.boot=fail` never boots healthy (every attempt fails, the
 *   unit resets, and after the allowed attempts it rolls back). A simulation feature for testing
 *   the rollback path: `npm run firmware-image -- --rev … --out … --manifest sim.boot=fail`.
 */
import { join } from 'node:path';
import type { BootOutcome, FirmwareHal } from '../firmware.js';
import {
  type BootKind,
  buildImage,
  DEFAULT_MAX_BOOT_ATTEMPTS,
  generatedPayload,
  MANIFEST_KEYS,
  type SlotImage,
} from '../../model/index.js';

export interface SimFirmwareOptions {
  dataDir: string;
  /** How long the first boot of a new image takes (UPDATING). */
  updateMs?: number;
  /** Boots a new image gets before the unit rolls back. */
  maxBootAttempts?: number;
}

export const DEFAULT_SIM_UPDATE_MS = 1000;
const FACTORY_PAYLOAD_BYTES = 256 * 1024;

export function createSimFirmware(options: SimFirmwareOptions): FirmwareHal {
  const updateMs = options.updateMs ?? DEFAULT_SIM_UPDATE_MS;
  let trialBootsFail = false;
  return {
    slotDirectory: join(options.dataDir, 'firmware'),
    maxBootAttempts: options.maxBootAttempts ?? DEFAULT_MAX_BOOT_ATTEMPTS,
    installUnavailable: () => undefined,
    factoryImage: (imageRev) => buildImage(imageRev, generatedPayload(imageRev, FACTORY_PAYLOAD_BYTES)),
    // The state machine chooses; the slot file is the slot, so installing, activating and marking
    // good have nothing further to do on a simulated unit.
    bootedSlot: async () => null,
    install: async () => {},
    activate: async () => {},
    markGood: async () => {},
    async bootImage(image: SlotImage, kind: BootKind): Promise<BootOutcome> {
      if (kind === 'trial' && updateMs > 0) await new Promise((resolve) => setTimeout(resolve, updateMs));
      // A forced failure takes the same path as an image built with `sim.boot=fail`.
      const fails = image.manifest[MANIFEST_KEYS.simBoot] === 'fail' || (kind === 'trial' && trialBootsFail);
      return fails ? 'failed' : 'healthy';
    },
    faults: {
      setTrialBootFails: (fail) => {
        trialBootsFail = fail;
      },
    },
    close: async () => {},
  };
}
