/**
 * Firmware A/B slots: what the device core's firmware manager (src/core/firmware/firmware-manager.ts)
 * needs from the platform. The manager owns the slot state machine and its SQLite state; the HAL
 * says where slot images live and connects the state machine to the platform's boot mechanism.
 * sim: the server process is the unit, so the state machine alone picks the slot at each boot.
 * linux: a bootloader (U-Boot environment, RAUC, …) picks it; a hook command connects the two.
 */
import type { BootKind, ImageHeader, SlotImage, SlotName } from '../model/index.js';
import type { FirmwareBootFaults } from './faults.js';

/** Whether a boot of an image reached the point where it runs the unit's configuration. */
export type BootOutcome = 'healthy' | 'failed';

export interface FirmwareHal {
  /** Directory of the slot image files (`slot-a.img`, `slot-b.img`); created when missing. */
  readonly slotDirectory: string;
  /** Boots a new image gets to become healthy before the unit rolls back to the previous one. */
  readonly maxBootAttempts: number;
  /** Why this unit cannot install firmware at all (e.g. no boot mechanism configured), or undefined. */
  installUnavailable(): string | undefined;
  /** The image a unit with empty slots holds from the factory (written to slot a at first boot). */
  factoryImage(imageRev: string): Buffer;
  /**
   * The slot the platform's bootloader started, or null when the server's own state machine
   * chooses (sim). A bootloader that counts attempts itself reports its choice here and the
   * manager follows it: the primary booting while a trial is pending means the bootloader rolled back.
   */
  bootedSlot(): Promise<SlotName | null>;
  /** The verified image is now the slot's file: copy it wherever the platform boots from. */
  install(slot: SlotName, imagePath: string, header: ImageHeader): Promise<void>;
  /** Make the next boot a trial of `slot`. Called after the slot state recorded the trial. */
  activate(slot: SlotName): Promise<void>;
  /** `slot` booted healthy: make it the platform's permanent choice. Called before the state commits it. */
  markGood(slot: SlotName): Promise<void>;
  /**
   * Runs the firmware part of a boot of `image` (sim: the time an update takes to install, and the
   * `sim.boot=fail` fault injection; linux: the OS is already up, so healthy).
   */
  bootImage(image: SlotImage, kind: BootKind): Promise<BootOutcome>;
  /** Boot failures a fault forces (sim); absent where a real bootloader boots. */
  readonly faults?: FirmwareBootFaults;
  close(): Promise<void>;
}
