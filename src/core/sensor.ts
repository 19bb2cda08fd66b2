/**
 * The device core: a unit's parts (compose-unit.ts wires them) held together, and the lifecycle only the
 * whole unit has: its start (the persisted configuration booted, the streams it asks for started), a new run
 * when the network settings move the address it sends from, and its stop. Routes reach each part one way,
 * through SensorServices (below). It calls the configuration store, the alert log and the HAL,
 * and never imports Fastify.
 */
import type { Logger } from 'pino';
import type { AlertLog } from '../alerts/index.js';
import type { Hal, HalKind } from '../hal/index.js';
import { imageRev, type ProductModel, type SensorIdentity } from '../model/index.js';
import { keptDamagedFiles, type SqliteDatabase } from '../store/index.js';
import type { StreamTotals } from '../udp/index.js';
import { composeUnit, type UnitParts } from './compose-unit.js';
import type { CoreFaultControls } from './fault-controls.js';
import { FirmwareManager } from './firmware/firmware-manager.js';
import type { LivePreview } from './live-preview.js';
import type { SensorMetadata } from './metadata.js';
import type { NetworkService } from './network-service.js';
import type { ConfigService, OfferService, PowerService, RunService } from './sensor-services.js';
import type { SensorDependencies } from './sensor-types.js';
import type { StorageState } from './storage-state.js';
import type { TelemetryMonitor } from './telemetry-monitor.js';
import type { TimeService } from './time-service.js';
import type { UserDataStore } from './user-data.js';
import type { ZoneMonitor } from './zones/zone-monitor.js';

/** What the routes and the entry point's listeners reach: each part one way, not the unit's start and stop. */
export type SensorServices = Omit<Sensor, 'faultControls' | 'settled' | 'close'>;

export class Sensor {
  readonly product: ProductModel;
  /** Which HAL the unit runs on (diagnostics). */
  readonly halKind: HalKind;
  /** What the unit tells its listeners (SensorEvents: reinit, status, restart, address). */
  readonly events: Pick<UnitParts['events'], 'on' | 'off' | 'once'>;
  /** The configuration lifecycle: staged, active, persisted, reinit (config-lifecycle.ts). */
  readonly configs: ConfigService;
  /** Restart, reboot, shutdown, thermal header (power-state.ts). */
  readonly power: PowerService;
  /** Status, initialization_id, the stream plan (unit-run.ts). */
  readonly run: RunService;
  /** What the running firmware offers clients (firmware-offer.ts). */
  readonly offer: OfferService;
  /** Zone Monitor's sets and live ids; offered to clients while the unit runs firmware 3.2 or later (offer.zoneMonitor). */
  readonly zones: ZoneMonitor;
  /** Time resources and the PTP profile. */
  readonly time: TimeService;
  /** Network resources, the static IPv4 override, the speed override and the bound address. */
  readonly network: NetworkService;
  /** Telemetry samples, with voltage/temperature thresholds turned into alerts. */
  readonly telemetry: TelemetryMonitor;
  /** Metadata documents, derived once per initialization_id. */
  readonly metadata: SensorMetadata;
  readonly userData: UserDataStore;
  readonly alerts: AlertLog;
  /** Whether the storage takes writes (answers 507/503 and /metrics show it). */
  readonly storage: StorageState;
  /** The live view's source (live-preview.ts). */
  readonly preview: LivePreview;
  /** What fault injection may change in the core (src/core/fault-controls.ts). */
  readonly faultControls: CoreFaultControls;
  private readonly hal: Hal;
  private readonly db: SqliteDatabase;
  private readonly log: Logger;
  /** Set once the boot ran: a move before it needs no second run (the boot's run sends from the new address). */
  private booted = false;

  private constructor(
    deps: SensorDependencies,
    /** Firmware slots: the running image, uploads, trial boot, commit and rollback. */
    readonly firmware: FirmwareManager,
    private readonly parts: UnitParts,
  ) {
    this.product = deps.identity.product;
    this.halKind = deps.hal.kind;
    this.hal = deps.hal;
    this.db = deps.db;
    this.log = deps.log;
    this.alerts = deps.alerts;
    ({
      events: this.events,
      configs: this.configs,
      power: this.power,
      run: this.run,
      offer: this.offer,
      zones: this.zones,
      time: this.time,
      network: this.network,
      telemetry: this.telemetry,
      metadata: this.metadata,
      userData: this.userData,
      storage: this.storage,
      preview: this.preview,
      faultControls: this.faultControls,
    } = parts);
    parts.events.on('address', () => this.runFromMovedAddress());
  }

  /** Boots a unit: loads the persisted configuration and starts the streams it asks for. */
  static async start(deps: SensorDependencies): Promise<Sensor> {
    const firmware = await FirmwareManager.open({
      db: deps.db,
      hal: deps.hal.firmware,
      alerts: deps.alerts,
      log: deps.log.child({ component: 'firmware' }),
      factoryImageRev: imageRev(deps.identity.firmware),
      factoryImageName: deps.identity.recordedFirmware?.imageRev,
      maxImageBytes: deps.firmwareMaxBytes,
      policy: deps.firmwarePolicy,
    });
    const sensor = new Sensor(deps, firmware, composeUnit(deps, firmware));
    const { parts } = sensor;
    await Promise.all([parts.time.restore(), parts.network.restore()]);
    await parts.queue.run(() => parts.power.boot(parts.configs.bootConfig()));
    sensor.booted = true;
    parts.zones.announceSetAside();
    parts.telemetry.start();
    return sensor;
  }

  /**
   * The data plane sends from the new address from the next run on: the active configuration runs again (a new
   * initialization_id, as after a real unit's network reset); the entry point moves the listener and mDNS.
   */
  private runFromMovedAddress(): void {
    if (!this.booted) return;
    void this.parts.queue
      .run(() => this.parts.run.reinit(this.parts.configs.get('active')))
      .catch((error: unknown) => this.log.error({ err: error }, 'the data streams could not move to the new address'));
  }

  /** Who the unit is now (its running firmware build included: firmware-offer.ts). */
  get identity(): SensorIdentity {
    return this.parts.identity();
  }

  /** Datagram counters of the data streams since start-up, across reinits (GET /metrics); null where unknown. */
  async streamTotals(): Promise<StreamTotals | null> {
    return (await this.hal.streams.streamTotals?.().catch(() => null)) ?? null;
  }

  /** Damaged database files kept aside in the data directory at start (the diagnostics dump carries them). */
  damagedStoreFiles(): { name: string; path: string }[] {
    return keptDamagedFiles(this.db.name);
  }

  /** Waits until every queued change has finished (tests, shutdown). */
  settled(): Promise<void> {
    return this.parts.queue.idle();
  }

  /** Stops the streams and releases the HAL; the caller closes the database afterwards. */
  async close(): Promise<void> {
    await this.parts.queue.idle();
    this.telemetry.stop();
    await this.zones.close();
    // Together: closing the HAL cancels the system tools a network reset may be waiting on, so the
    // stop never waits out a hung hook or daemon.
    await Promise.all([this.network.close(), this.hal.close()]);
  }
}
