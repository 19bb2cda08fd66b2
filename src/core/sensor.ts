/**
 * The device core: owns the unit's state (status, initialization_id, the staged/active/persisted
 * configuration, user data) and composes its parts: the configuration lifecycle (config-lifecycle.ts), the
 * power state (power-state.ts: restart, reboot, shutdown, thermal header) and the run both end in
 * (unit-run.ts), wired together by unit-state.ts; what the running firmware offers (firmware-offer.ts); the
 * services of time, network, telemetry, user data and metadata. Routes call it; it calls the configuration
 * store, the alert log and the HAL. It never imports Fastify.
 */
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { AlertLog } from '../alerts/index.js';
import type { CheckedValues, ConfigView, SensorConfig } from '../config/index.js';
import type { Hal, HalKind, RebootReason } from '../hal/index.js';
import { imageRev, type ProductModel, type SensorIdentity } from '../model/index.js';
import { KvStore, keptDamagedFiles, type SqliteDatabase, storageGateOf } from '../store/index.js';
import type { StreamPlan, StreamTotals } from '../udp/index.js';
import type { ConfigLifecycle } from './config-lifecycle.js';
import type { CoreFaultControls } from './fault-controls.js';
import { FirmwareManager } from './firmware/firmware-manager.js';
import { FirmwareOffer } from './firmware-offer.js';
import { SensorMetadata } from './metadata.js';
import { type AddressMove, BoundAddress } from './bound-address.js';
import { NetworkService } from './network-service.js';
import type { PowerState } from './power-state.js';
import { type LivePreview, livePreview } from './live-preview.js';
import type { ChangeFlags, SensorDependencies, SensorEvents } from './sensor-types.js';
import { SerialQueue } from './serial-queue.js';
import type { ThermalHeader } from './shutdown-guard.js';
import type { SensorStatus } from './status.js';
import { StorageState } from './storage-state.js';
import type { TelemetryMonitor } from './telemetry-monitor.js';
import { TimeService } from './time-service.js';
import type { UnitRun } from './unit-run.js';
import { UserDataStore } from './user-data.js';
import type { ZoneMonitor } from './zones/zone-monitor.js';
import { composeUnitState } from './unit-state.js';

export class Sensor extends EventEmitter<SensorEvents> {
  private readonly baseIdentity: SensorIdentity;
  readonly product: ProductModel;
  private readonly hal: Hal;
  private readonly db: SqliteDatabase;
  readonly userData: UserDataStore;
  /** Metadata documents, derived once per initialization_id. */
  readonly metadata: SensorMetadata;
  readonly log: Logger;
  readonly alerts: AlertLog;
  /** Whether the storage takes writes (answers 507/503 and /metrics show it). */
  readonly storage: StorageState;
  /** Telemetry samples, with voltage/temperature thresholds turned into alerts. */
  readonly telemetry: TelemetryMonitor;
  /** Time resources and the PTP profile. */
  readonly time: TimeService;
  /** Network resources, the static IPv4 override and the speed override. */
  readonly network: NetworkService;
  /** Zone Monitor's sets and live ids; offered to clients while the unit runs firmware 3.2 or later (zoneMonitorOffered). */
  readonly zones: ZoneMonitor;
  private readonly offer: FirmwareOffer;
  private readonly queue = new SerialQueue();
  private readonly run: UnitRun;
  private readonly configs: ConfigLifecycle;
  private readonly power: PowerState;
  /** The specific address the unit listens on and sends from (deps.bindAddress), following the interface. */
  private readonly bound: BoundAddress;
  /** Set once the boot ran: a move before it needs no second run (the boot's run sends from the new address). */
  private booted = false;

  private constructor(
    deps: SensorDependencies,
    /** Firmware slots: the running image, uploads, trial boot, commit and rollback. */
    readonly firmware: FirmwareManager,
  ) {
    super();
    this.baseIdentity = deps.identity;
    this.product = deps.identity.product;
    this.hal = deps.hal;
    this.db = deps.db;
    this.log = deps.log;
    this.storage = new StorageState(deps.log.child({ component: 'storage' }));
    this.bound = new BoundAddress(deps.bindAddress);
    const kv = new KvStore(deps.db);
    this.userData = new UserDataStore(kv);
    this.metadata = new SensorMetadata(this);
    this.alerts = deps.alerts;
    this.offer = new FirmwareOffer({
      identity: () => this.identity,
      runningImageRev: () => this.firmware.runningImageRev,
    });
    ({
      zones: this.zones,
      run: this.run,
      configs: this.configs,
      power: this.power,
      telemetry: this.telemetry,
    } = composeUnitState(
      deps,
      { kv, firmware, queue: this.queue, userData: this.userData, events: this },
      {
        identity: () => this.identity,
        zoneMonitorOffered: () => this.zoneMonitorOffered,
        absentParameters: () => this.absentParameters,
        dataSource: () => this.bound.current,
        absentValues: () => this.offer.absentValues,
      },
    ));
    this.time = new TimeService({ hal: deps.hal.time, kv, activeConfig: () => this.config('active'), log: deps.log });
    this.network = new NetworkService({
      hal: deps.hal.network,
      kv,
      product: this.product,
      log: deps.log.child({ component: 'network' }),
      bound: this.bound,
      onAddressMoved: (move) => this.addressMoved(move),
    });
    // A reboot powers the unit on again with its persisted network settings (DELETE config removed the override).
    this.on('restart', () => {
      this.time.powerOn();
      void this.network.restore();
    });
  }

  /** What fault injection may change in the core (src/core/fault-controls.ts). */
  readonly faultControls: CoreFaultControls = {
    setRebootMs: (ms) => this.power.setRebootMs(ms),
    setUploadFilter: (filter) => this.firmware.setUploadFilter(filter),
    restart: () => this.restart(),
    holdAlert: (id, vars) => this.alerts.hold(id, vars),
    releaseAlert: (id, reason) => this.alerts.release(id, reason),
    setStorageFault: (fault) => storageGateOf(this.db).set(fault),
  };

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
    const sensor = new Sensor(deps, firmware);
    await Promise.all([sensor.time.restore(), sensor.network.restore()]);
    await sensor.queue.run(() => sensor.power.boot(sensor.configs.bootConfig()));
    sensor.booted = true;
    sensor.zones.announceSetAside();
    sensor.telemetry.start();
    return sensor;
  }

  /** The specific address the unit is bound to now (it follows its interface), or undefined for a wildcard one. */
  get boundAddress(): string | undefined {
    return this.bound.current;
  }

  /**
   * The data plane sends from the new address from the next run on: the active configuration runs again (a new
   * initialization_id, as after a real unit's network reset); the entry point moves the listener and mDNS.
   */
  private addressMoved(move: AddressMove): void {
    this.emit('address', move);
    if (!this.booted) return;
    void this.queue
      .run(() => this.run.reinit(this.configs.get('active')))
      .catch((error: unknown) => this.log.error({ err: error }, 'the data streams could not move to the new address'));
  }

  /** Which HAL the unit runs on (diagnostics). */
  get halKind(): HalKind {
    return this.hal.kind;
  }

  /** The live view's source (live-preview.ts). */
  get preview(): LivePreview {
    return livePreview(this.hal.streams, this);
  }

  /** Datagram counters of the data streams since start-up, across reinits (GET /metrics); null where unknown. */
  async streamTotals(): Promise<StreamTotals | null> {
    return (await this.hal.streams.streamTotals?.().catch(() => null)) ?? null;
  }

  /** Damaged database files kept aside in the data directory at start (the diagnostics dump carries them). */
  damagedStoreFiles(): { name: string; path: string }[] {
    return keptDamagedFiles(this.db.name);
  }

  /**
   * Who the unit is; its firmware build is the one the running slot holds (src/core/firmware). A replay unit
   * names the recording's firmware while it runs its factory image, and an installed update once it runs one.
   */
  get identity(): SensorIdentity {
    const identity = { ...this.baseIdentity, firmware: this.firmware.runningBuild };
    if (!this.firmware.runsFactoryImage) delete identity.recordedFirmware;
    return identity;
  }

  /**
   * The lidar profile a replayed recording adds to what this unit accepts and reports (LEGACY, from
   * firmware 2.x), when the registry does not list it; undefined otherwise. The OpenAPI document names it.
   */
  get recordedOnlyProfile(): string | undefined {
    return this.configs.recordedOnlyProfile;
  }

  // The run's state (unit-run.ts).
  get status(): SensorStatus {
    return this.run.status;
  }
  get initializationId(): number {
    return this.run.initializationId;
  }
  setStatus(status: SensorStatus): void {
    this.run.setStatus(status);
  }
  /** Where this unit's UDP to `destination` leaves from: what a client that filters by source must talk HTTP to. */
  dataSourceTowards(destination: string): Promise<string> {
    return this.run.dataSourceTowards(destination);
  }
  streamPlan(config: Readonly<SensorConfig>): StreamPlan | null {
    return this.run.streamPlan(config);
  }

  // The power state (power-state.ts): restart, reboot, shutdown, thermal header.
  get rebooting(): boolean {
    return this.power.rebooting;
  }
  get simulatedRebootMs(): number {
    return this.power.simulatedRebootMs;
  }
  get shutdownAlert(): string | undefined {
    return this.power.shutdownAlert;
  }
  get thermalHeader(): Readonly<ThermalHeader> {
    return this.power.thermalHeader;
  }
  /** A restart is acknowledged: 503 from now, and no change applied until the unit is back (power-state.ts). */
  announceRestart(reason: RebootReason = 'restart'): void {
    this.power.announceRestart(reason);
  }
  /** Call after the response is sent. */
  restart(reason: RebootReason = 'restart'): Promise<void> {
    return this.power.restart(reason);
  }
  assertReachable(): void {
    this.power.assertReachable();
  }
  reachable(): boolean {
    return this.power.reachable();
  }

  // What the running firmware offers (firmware-offer.ts).
  get reportedFirmwareVersion(): string {
    return this.offer.reportedVersion;
  }
  get zoneMonitorOffered(): boolean {
    return this.offer.zoneMonitor;
  }
  get absentParameters(): ReadonlySet<string> {
    return this.offer.absentParameters;
  }
  get absentValues(): ReadonlyMap<string, readonly unknown[]> {
    return this.offer.absentValues;
  }

  // The configuration lifecycle (config-lifecycle.ts): staged, active, persisted, reinit.
  /** The configuration as this unit reports it: without the parameters its firmware does not have. */
  config(view: ConfigView = 'active'): Readonly<SensorConfig> {
    return this.offer.shown(this.configs.get(view));
  }
  /** The registry's value rules for a change on top of `base` (ConfigLifecycle.check): throws invalid-configuration. */
  checkConfigChange(input: Record<string, unknown>, base: 'staged' | 'active', autoDestination?: string) {
    return this.configs.check(input, base, autoDestination);
  }
  changeConfig(values: CheckedValues, flags: ChangeFlags): Promise<void> {
    return this.configs.change(values, flags);
  }
  setParameter(values: CheckedValues): Promise<void> {
    return this.configs.setParameter(values);
  }
  reinitialize(): Promise<void> {
    return this.configs.reinitialize();
  }
  persistActive(): Promise<void> {
    return this.configs.persistActive();
  }
  /** `DELETE /api/v1/sensor/config` (announces the restart); call `restart()` once the response is sent. */
  resetConfiguration(): Promise<void> {
    return this.configs.reset();
  }

  /** Waits until every queued change has finished (tests, shutdown). */
  settled(): Promise<void> {
    return this.queue.idle();
  }

  /** Stops the streams and releases the HAL; the caller closes the database afterwards. */
  async close(): Promise<void> {
    await this.queue.idle();
    this.telemetry.stop();
    await this.zones.close();
    // Together: closing the HAL cancels the system tools a network reset may be waiting on, so the
    // stop never waits out a hung hook or daemon.
    await Promise.all([this.network.close(), this.hal.close()]);
  }
}
