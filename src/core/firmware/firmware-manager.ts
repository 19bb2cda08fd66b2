/**
 * The unit's firmware: which slot runs, uploads into the other slot, the trial boot of a new
 * image, its commit once healthy and the rollback when it never gets there. Part of the device
 * core (the Sensor owns one); routes reach it through the Sensor. The slot state machine is pure
 * (src/model/slot-state.ts), its state lives in SQLite (slot-store.ts), every transition is saved in one
 * transaction before anything depends on it, and the HAL connects it to the platform. A boot (the trial,
 * its rollback, its commit) is firmware-boot.ts's, on the state kept here.
 */
import type { Logger } from 'pino';
import {
  abandonTrial,
  type AlertSink,
  buildOfImageRev,
  commitPending,
  conflict,
  factoryState,
  type FirmwareBuild,
  install,
  installProblem,
  installTarget,
  parseImageHeader,
  payloadTooLarge,
  type SlotImage,
  type SlotName,
  type SlotState,
} from '../../model/index.js';
import type { FirmwareHal } from '../../hal/index.js';
import type { SqliteDatabase } from '../../store/index.js';
import { crashPoint, storageGateOf } from '../../store/index.js';
import { ensureSlotDirectory, removeStaleTemporaries, slotImageOf, slotPath, writeFileDurably } from './slot-files.js';
import { SlotStore } from './slot-store.js';
import { writeUploadToSlot } from './upload-writer.js';
import { FirmwarePolicy, FirmwareRefusal } from './firmware-trust.js';
import { type BootCallbacks, FirmwareBoot, type RunningFirmware } from './firmware-boot.js';

/** Default of `--firmware-max-bytes`: the largest image an upload may hold. */
/** Passes an upload body on, or fails it partway (the manager then installs nothing): fault injection's hook. */
export type UploadFilter = (body: AsyncIterable<Buffer | string>) => AsyncIterable<Buffer | string>;

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

export class FirmwareManager {
  private state: SlotState;
  private uploading = false;
  /** Fault injection: what every upload body passes through (src/core/fault-controls.ts). */
  private uploadFilter: UploadFilter | undefined;
  readonly maxImageBytes: number;
  readonly policy: FirmwarePolicy;
  private readonly store: SlotStore;
  private readonly booting: FirmwareBoot;

  private constructor(
    private readonly deps: FirmwareManagerDeps,
    store: SlotStore,
    state: SlotState,
  ) {
    this.store = store;
    this.state = state;
    this.maxImageBytes = deps.maxImageBytes ?? DEFAULT_FIRMWARE_MAX_BYTES;
    this.policy = deps.policy ?? new FirmwarePolicy();
    this.booting = new FirmwareBoot(deps, {
      state: () => this.state,
      save: (next) => this.save(next),
      restoreFactory: async () => {
        this.state = await FirmwareManager.installFactoryImage(deps, store, this.state.primary);
      },
    });
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
    return this.booting.running;
  }

  /**
   * One boot of the unit: chooses the image (counting a trial attempt before it runs), verifies it,
   * rolls back when a trial used up its attempts or cannot boot, and repeats after failed attempts.
   */
  boot(callbacks: BootCallbacks): Promise<RunningFirmware> {
    return this.booting.boot(callbacks);
  }

  /** The unit reached RUNNING (or STANDBY): a trial image is healthy and becomes the committed one. */
  confirmHealthy(): Promise<boolean> {
    return this.booting.confirmHealthy();
  }

  /** What the unit runs, or (before the first boot) what it will boot. */
  get runningBuild(): FirmwareBuild {
    return this.booting.running?.build ?? buildOfImageRev(this.state.slots[this.state.primary]!.imageRev);
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
    return this.booting.running?.image.imageRev ?? this.state.slots[this.state.primary]!.imageRev;
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

  private save(state: SlotState): void {
    this.store.save(state);
    this.state = state;
  }
}
