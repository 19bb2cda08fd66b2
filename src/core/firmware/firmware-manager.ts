/**
 * The unit's firmware: which slot runs, uploads into the other slot, the trial boot of a new
 * image, its commit once healthy and the rollback when it never gets there. Part of the device
 * core (the Sensor owns one); routes reach it through the Sensor. The slot state machine is pure
 * (src/model/slot-state.ts), its state lives in SQLite (slot-store.ts), every transition is saved in one
 * transaction before anything depends on it, and the HAL connects it to the platform.
 */
import type { Logger } from 'pino';
import {
  abandonTrial,
  ALERT_IDS,
  type AlertSink,
  type BootKind,
  buildOfImageRev,
  commitPending,
  conflict,
  factoryState,
  type FirmwareBuild,
  install,
  installProblem,
  installTarget,
  markHealthy,
  otherSlot,
  parseImageHeader,
  payloadTooLarge,
  planBoot,
  type SlotImage,
  type SlotName,
  type SlotState,
} from '../../model/index.js';
import type { FirmwareHal } from '../../hal/index.js';
import type { SqliteDatabase } from '../../store/index.js';
import { crashPoint, storageGateOf } from '../../store/index.js';
import {
  ensureSlotDirectory,
  removeStaleTemporaries,
  slotImageOf,
  slotPath,
  verifySlotFile,
  writeFileDurably,
} from './slot-files.js';
import { SlotStore } from './slot-store.js';
import { writeUploadToSlot } from './upload-writer.js';
import { FirmwarePolicy, FirmwareRefusal } from './firmware-trust.js';
import type { UploadFilter } from '../fault-controls.js';

/** Alert raised when a new image never booted healthy and the unit went back to the previous one. */
export const FIRMWARE_ROLLBACK_ALERT = ALERT_IDS.FIRMWARE_ROLLBACK;

/** Default of `--firmware-max-bytes`: the largest image an upload may hold. */
export const DEFAULT_FIRMWARE_MAX_BYTES = 256 * 1024 * 1024;

export interface FirmwareManagerDeps {
  db: SqliteDatabase;
  hal: FirmwareHal;
  alerts: AlertSink;
  log: Logger;
  /** image_rev of the image a unit with empty slots holds from the factory. */
  factoryImageRev: string;
  /**
   * How the unit names its factory image while it runs it, when that differs from factoryImageRev: a replay
   * unit is the recorded sensor, so `fw` names the recording's image_rev, as sensor_info does (the client
   * contract: fw is the same string as image_rev). An installed update is named by its own image_rev.
   */
  factoryImageName?: string;
  /** Largest image an upload may hold, header included. */
  maxImageBytes?: number;
  /** Which images install (trust store, minimum version); default: any intact image. */
  policy?: FirmwarePolicy;
}

/** `GET /api/v1/system/firmware`. */
export interface FirmwareStatus {
  commit_pending: boolean;
  fw: string;
}

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

export class FirmwareManager {
  private state: SlotState;
  private current: RunningFirmware | undefined;
  private uploading = false;
  /** Fault injection: what every upload body passes through (src/core/fault-controls.ts). */
  private uploadFilter: UploadFilter | undefined;
  readonly maxImageBytes: number;
  readonly policy: FirmwarePolicy;
  private readonly store: SlotStore;

  private constructor(
    private readonly deps: FirmwareManagerDeps,
    store: SlotStore,
    state: SlotState,
  ) {
    this.store = store;
    this.state = state;
    this.maxImageBytes = deps.maxImageBytes ?? DEFAULT_FIRMWARE_MAX_BYTES;
    this.policy = deps.policy ?? new FirmwarePolicy();
  }

  /** Opens the slot state; a unit that never booted gets its factory image in slot a, committed. */
  static async open(deps: FirmwareManagerDeps): Promise<FirmwareManager> {
    const dir = deps.hal.slotDirectory;
    await ensureSlotDirectory(dir);
    const stale = await removeStaleTemporaries(dir);
    if (stale.length) deps.log.warn({ files: stale }, 'removed firmware uploads a power loss interrupted');
    const store = new SlotStore(deps.db);
    const state = store.load() ?? (await FirmwareManager.installFactoryImage(deps, store, 'a'));
    return new FirmwareManager(deps, store, state);
  }

  private static async installFactoryImage(
    deps: FirmwareManagerDeps,
    store: SlotStore,
    slot: SlotName,
  ): Promise<SlotState> {
    const bytes = deps.hal.factoryImage(deps.factoryImageRev);
    const header = parseImageHeader(bytes.subarray(0, bytes.readUInt16BE(10)));
    await writeFileDurably(deps.hal.slotDirectory, slotPath(deps.hal.slotDirectory, slot), bytes);
    const image = slotImageOf(header);
    const state: SlotState =
      slot === 'a' ? factoryState(image) : { slots: { a: null, b: image }, primary: 'b', trial: null, bootAttempts: 0 };
    store.save(state);
    return state;
  }

  get slotState(): Readonly<SlotState> {
    return this.state;
  }

  /** The image that runs, once a boot chose one. */
  get running(): RunningFirmware | undefined {
    return this.current;
  }

  /** What the unit runs, or (before the first boot) what it will boot. */
  get runningBuild(): FirmwareBuild {
    return this.current?.build ?? buildOfImageRev(this.state.slots[this.state.primary]!.imageRev);
  }

  /** Whether the image that runs (or will boot) is the factory image. */
  get runsFactoryImage(): boolean {
    return this.runningImageRev === this.deps.factoryImageRev;
  }

  get status(): FirmwareStatus {
    const name = this.runsFactoryImage ? this.deps.factoryImageName : undefined;
    return { commit_pending: commitPending(this.state), fw: name ?? this.runningImageRev };
  }

  /** The image revision that runs (or will boot): what every version the unit reports follows. */
  get runningImageRev(): string {
    return this.current?.image.imageRev ?? this.state.slots[this.state.primary]!.imageRev;
  }

  /**
   * Throws when an upload announced with these headers cannot be taken now (409 while an update is
   * pending or another upload runs, or the platform cannot install; 413 when Content-Length exceeds
   * the limit), so it can be refused before the client sends the body.
   */
  checkUpload(contentLength: number | undefined): void {
    if (contentLength !== undefined && contentLength > this.maxImageBytes) {
      throw payloadTooLarge(
        `the firmware image is ${contentLength} bytes; this unit accepts at most ${this.maxImageBytes}`,
      );
    }
    const unavailable = this.deps.hal.installUnavailable();
    if (unavailable) throw conflict(unavailable);
    if (this.uploading) throw conflict('another firmware upload is in progress');
    const problem = installProblem(this.state);
    if (problem) throw conflict(problem);
  }

  /** Fault injection (the core's fault controls): every upload body passes through `filter`; undefined: none. */
  setUploadFilter(filter: UploadFilter | undefined): void {
    this.uploadFilter = filter;
  }

  /**
   * Receives an image into the inactive slot, verifies it and makes it the trial: the next boot
   * runs it. On any failure the slots and the slot state are as before.
   */
  async install(body: AsyncIterable<Buffer | string>, contentLength?: number): Promise<SlotImage> {
    this.checkUpload(contentLength);
    // Refused before a byte is written when the storage takes no writes (the fault plane's storage fault).
    storageGateOf(this.deps.db).check('adds');
    this.uploading = true;
    try {
      const target = installTarget(this.state);
      const dir = this.deps.hal.slotDirectory;
      const received = this.uploadFilter ? this.uploadFilter(body) : body;
      const header = await writeUploadToSlot(received, {
        dir,
        slot: target,
        maxBytes: this.maxImageBytes,
        policy: this.policy,
      }).catch((error: unknown) => {
        if (error instanceof FirmwareRefusal)
          this.deps.log.warn(
            { image_rev: error.imageRev, reason: error.type },
            `firmware image refused: ${error.detail}`,
          );
        throw error;
      });
      await this.deps.hal.install(target, slotPath(dir, target), header);
      crashPoint('upload-before-switch');
      const image = slotImageOf(header);
      this.save(install(this.state, image));
      crashPoint('upload-after-switch');
      try {
        await this.deps.hal.activate(target);
      } catch (error) {
        // The platform will not try the image: withdraw the trial so the state says what will boot.
        this.save(abandonTrial(this.state));
        throw error;
      }
      this.deps.log.info(
        { slot: target, image_rev: image.imageRev },
        'firmware image installed; it boots on the next restart',
      );
      return image;
    } finally {
      this.uploading = false;
    }
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
    this.state = await FirmwareManager.installFactoryImage(this.deps, this.store, this.state.primary);
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

  private save(state: SlotState): void {
    this.store.save(state);
    this.state = state;
  }
}
