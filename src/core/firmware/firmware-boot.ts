/**
 * One boot of the unit's firmware (firmware-manager.ts owns the slots and uploads): which image runs,
 * the trial of a new image counted and verified, the rollback when it never boots healthy, and its commit
 * once healthy. Every transition goes through the slot state the manager saves before anything depends on it.
 */
import type { Logger } from 'pino';
import {
  abandonTrial,
  ALERT_IDS,
  type AlertSink,
  type BootKind,
  buildOfImageRev,
  type FirmwareBuild,
  markHealthy,
  otherSlot,
  planBoot,
  type SlotImage,
  type SlotName,
  type SlotState,
} from '../../model/index.js';
import type { FirmwareHal } from '../../hal/index.js';
import { crashPoint } from '../../store/index.js';
import { slotPath, verifySlotFile } from './slot-files.js';

/** Alert raised when a new image never booted healthy and the unit went back to the previous one. */
export const FIRMWARE_ROLLBACK_ALERT = ALERT_IDS.FIRMWARE_ROLLBACK;

export interface RunningFirmware {
  slot: SlotName;
  image: SlotImage;
  kind: BootKind;
  build: FirmwareBuild;
}

/** How a boot shows on the unit; the device core turns these into statuses and reboot windows. */
export interface BootCallbacks {
  /** The chosen image starts: a trial boot is the first boot after an update (UPDATING). */
  starting(kind: BootKind): void;
  /** The image failed to boot: the unit goes down (watchdog reset) before the next attempt. */
  failedAttempt(): Promise<void>;
}

/** What a boot needs of the firmware manager: the slot state, saved on every transition. */
export interface BootSlots {
  state(): SlotState;
  save(state: SlotState): void;
  /** No intact slot is left: the factory image goes into the committed slot. */
  restoreFactory(): Promise<void>;
}

export interface BootDependencies {
  hal: FirmwareHal;
  alerts: AlertSink;
  log: Logger;
}

export class FirmwareBoot {
  private current: RunningFirmware | undefined;

  constructor(
    private readonly deps: BootDependencies,
    private readonly slots: BootSlots,
  ) {}

  /** The image that runs, once a boot chose one. */
  get running(): RunningFirmware | undefined {
    return this.current;
  }

  private get state(): SlotState {
    return this.slots.state();
  }

  private save(state: SlotState): void {
    this.slots.save(state);
  }

  /**
   * One boot of the unit: chooses the image (counting a trial attempt before it runs), verifies it,
   * rolls back when a trial used up its attempts or cannot boot, and repeats after failed attempts.
   */
  async boot(callbacks: BootCallbacks): Promise<RunningFirmware> {
    const booted = await this.deps.hal.bootedSlot();
    if (booted !== null) return this.followBootloader(booted, callbacks);
    for (;;) {
      const plan = planBoot(this.state, this.deps.hal.maxBootAttempts);
      // The alert comes first: a power loss right after would otherwise lose it with the rollback already saved.
      if (plan.kind === 'rollback')
        this.raiseRollback(plan.abandoned, `it did not boot healthy in ${this.deps.hal.maxBootAttempts} attempts`);
      if (plan.state !== this.state) this.save(plan.state);
      crashPoint('boot-after-plan');
      const image = this.state.slots[plan.slot]!;
      const intact = await this.verify(plan.slot, image);
      if (!intact) {
        if (plan.kind === 'trial') {
          this.raiseRollback(image, 'its slot file failed verification');
          this.save(abandonTrial(this.state));
        } else {
          await this.recoverPrimary();
        }
        continue;
      }
      // From here the image is what runs (fw, sensor_info), even while it is still coming up.
      const running = this.run(plan.slot, image, plan.kind);
      callbacks.starting(plan.kind);
      const outcome = await this.deps.hal.bootImage(image, plan.kind);
      if (outcome === 'failed' && plan.kind === 'trial') {
        this.deps.log.warn(
          { slot: plan.slot, image_rev: image.imageRev, attempt: plan.attempt },
          'new firmware image failed to boot',
        );
        await callbacks.failedAttempt();
        continue;
      }
      if (outcome === 'failed')
        this.deps.log.error(
          { slot: plan.slot, image_rev: image.imageRev },
          'the committed firmware image reports a failed boot; running it anyway (there is nothing to fall back to)',
        );
      return running;
    }
  }

  /**
   * The unit reached RUNNING (or STANDBY) with its configuration loaded: a trial image is healthy
   * and becomes the committed one. Returns true when this commit happened.
   */
  async confirmHealthy(): Promise<boolean> {
    const running = this.current;
    if (!running || this.state.trial !== running.slot) return false;
    await this.deps.hal.markGood(running.slot);
    crashPoint('boot-before-commit');
    this.save(markHealthy(this.state, running.slot));
    crashPoint('boot-after-commit');
    this.deps.alerts.clear(FIRMWARE_ROLLBACK_ALERT, 'a firmware update was committed.');
    this.deps.log.info({ slot: running.slot, image_rev: running.image.imageRev }, 'firmware image committed');
    return true;
  }

  /** A platform bootloader chose the slot (linux): follow it and reconcile the state with it. */
  private async followBootloader(booted: SlotName, callbacks: BootCallbacks): Promise<RunningFirmware> {
    let kind: BootKind = 'normal';
    if (this.state.trial !== null) {
      if (booted === this.state.trial) {
        kind = 'trial';
        this.save({ ...this.state, bootAttempts: this.state.bootAttempts + 1 });
      } else {
        const abandoned = this.state.slots[this.state.trial] ?? undefined;
        this.raiseRollback(abandoned, 'the bootloader went back to the previous slot');
        this.save(abandonTrial(this.state));
        kind = 'rollback';
      }
    } else if (booted !== this.state.primary) {
      if (this.state.slots[booted]) {
        this.deps.log.warn(
          { booted, primary: this.state.primary },
          'the bootloader started the other slot; adopting it as the committed one',
        );
        this.save({ ...this.state, primary: booted });
      } else {
        this.deps.log.error(
          { booted },
          'the bootloader started a slot with no recorded image; reporting the committed one',
        );
        booted = this.state.primary;
      }
    }
    crashPoint('boot-after-plan');
    const image = this.state.slots[booted]!;
    const running = this.run(booted, image, kind);
    callbacks.starting(kind);
    await this.deps.hal.bootImage(image, kind);
    return running;
  }

  private run(slot: SlotName, image: SlotImage, kind: BootKind): RunningFirmware {
    this.current = { slot, image, kind, build: buildOfImageRev(image.imageRev) };
    return this.current;
  }

  private async verify(slot: SlotName, image: SlotImage): Promise<boolean> {
    try {
      await verifySlotFile(slotPath(this.deps.hal.slotDirectory, slot), image);
      return true;
    } catch (error) {
      this.deps.log.error({ slot, image_rev: image.imageRev, err: error }, 'firmware slot failed verification');
      return false;
    }
  }

  /**
   * The committed slot's file is damaged (it never is after a power loss; a disk fault or a hand
   * in the data directory can do it): boot the other slot when it holds an intact image, else
   * restore the factory image.
   */
  private async recoverPrimary(): Promise<void> {
    const other = otherSlot(this.state.primary);
    const otherImage = this.state.slots[other];
    if (otherImage && (await this.verify(other, otherImage))) {
      this.deps.log.error({ slot: other }, 'committed firmware slot is damaged; falling back to the other slot');
      this.save({ ...this.state, primary: other, trial: null, bootAttempts: 0 });
      return;
    }
    this.deps.log.error('no intact firmware slot; restoring the factory image');
    await this.slots.restoreFactory();
  }

  private raiseRollback(abandoned: SlotImage | undefined, why: string): void {
    const to = this.state.slots[this.state.primary]!.imageRev;
    this.deps.log.error({ abandoned: abandoned?.imageRev, running: to }, `firmware update rolled back: ${why}`);
    // An alert still active from an earlier rollback would hide this one (raise is idempotent).
    this.deps.alerts.clear(FIRMWARE_ROLLBACK_ALERT, 'a newer firmware update was rolled back.');
    this.deps.alerts.raise(FIRMWARE_ROLLBACK_ALERT, {
      image_rev: abandoned?.imageRev ?? 'unknown',
      previous_image_rev: to,
      reason: why,
    });
  }
}
