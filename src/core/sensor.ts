/**
 * The device core: owns the unit's state (status, initialization_id, the staged/active/persisted
 * configuration, user data) and orchestrates reinitialization and restart. Routes call it; it calls
 * the configuration store, the alert log and the HAL. It never imports Fastify.
 *
 * Reinit is one operation (docs/architecture.md): validate the would-be active configuration as a whole →
 * commit it (one SQLite transaction when persisting) → new initialization_id → INITIALIZING →
 * HAL reconfigures → RUNNING (or STANDBY). Every change goes through one serial queue; a failed
 * step leaves the previous active configuration running and the store unchanged.
 */
import type { FirmwarePolicy } from './firmware/firmware-trust.js';
import { EventEmitter } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { StreamTotals } from '../udp/index.js';
import {
  alertDefinition,
  ApiError,
  badRequest,
  conflict,
  hasZoneMonitor,
  imageRev,
  invalidConfiguration,
  LIDAR_PROFILES,
  nextInitializationId,
  type ProductModel,
  resolveStreamPlan,
  type SensorIdentity,
  serialToBigInt,
  type UdpFaultRule,
  unavailable,
} from '../model/index.js';
import {
  combinationErrors,
  ConfigState,
  ConfigStore,
  type ConfigView,
  defaultConfig,
  normalizeInput,
  parametersNewerThan,
  type SensorConfig,
} from '../config/index.js';
import type { Hal, HalKind, LidarHal, RebootReason, StreamRun } from '../hal/index.js';
import { KV_KEYS, KvStore, type SqliteDatabase } from '../store/index.js';
import { SerialQueue } from './serial-queue.js';
import type { SensorStatus } from './status.js';
import { UserDataStore } from './user-data.js';
import { SensorMetadata } from './metadata.js';
import type { AlertLog } from '../alerts/index.js';
import { TelemetryMonitor } from './telemetry-monitor.js';
import {
  NORMAL_HEADER,
  packThermalHeader,
  shutdownCause,
  TemperatureTrend,
  thermalHeader,
  type ThermalHeader,
} from './shutdown-guard.js';
import { TimeService } from './time-service.js';
import { NetworkService } from './network-service.js';
import { FirmwareManager } from './firmware/firmware-manager.js';
import { crashPoint, DATABASE_FILE, damagedFiles, storageGateOf } from '../store/index.js';
import { StorageState } from './storage-state.js';
import { statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { CoreFaultControls } from './fault-controls.js';
import { ZoneMonitor } from './zones/zone-monitor.js';

export interface SensorDependencies {
  db: SqliteDatabase;
  hal: Hal;
  identity: SensorIdentity;
  log: Logger;
  /** The alert log (the same AlertSink the HAL reports to). */
  alerts: AlertLog;
  /** Local address the data streams are sent from (the HTTP listen address when it is a specific one). */
  bindAddress?: string;
  /** How long a simulated reboot keeps the unit unreachable; real units take tens of seconds. */
  simulatedRebootMs?: number;
  /** Largest firmware image an upload may hold (`--firmware-max-bytes`). */
  firmwareMaxBytes?: number;
  /** Which firmware images install (`--firmware-trust`, `--firmware-min-version`); default any intact one. */
  firmwarePolicy?: FirmwarePolicy;
  /** Set when the unit replays a recording (`--replay`): what the recording fixes. */
  recording?: RecordingBinding;
}

/** The live view's source: pictures, and what decides whether anything is sent (to say why not). */
export interface LivePreview extends Pick<LidarHal, 'watchPreview'> {
  streamState(): {
    config: Readonly<SensorConfig>;
    status: SensorStatus;
    rebooting: boolean;
    udpFaultRules: readonly UdpFaultRule[];
    /** The message of the alert that shut the unit down, while it holds. */
    shutdown?: string;
  };
}

/** What a replayed recording fixes about the unit (src/main/recording-binding.ts). */
export interface RecordingBinding {
  /** The recording's initialization_id: packets carry it, so it stays across reinits. */
  initializationId: number;
  /** The recorded lidar profile, accepted for udp_profile_lidar even where the registry does not list it (LEGACY). */
  recordedProfile: string;
  /** Why the recording cannot honour `candidate` (a 409), or undefined when it can. */
  refusal(candidate: Readonly<SensorConfig>, active: Readonly<SensorConfig>): string | undefined;
  /** `config` with the parameters only the recording decides set to the recorded values (each boot). */
  bind(config: Readonly<SensorConfig>): SensorConfig;
}

/** Flags of a configuration change (docs/client-behaviour.md): reinit makes staged active, persist stores active. */
export interface ChangeFlags {
  reinit: boolean;
  persist: boolean;
  /** The caller's IPv4 address: what `udp_dest: "@auto"` becomes. Undefined where `@auto` is refused. */
  autoDestination?: string;
}

export interface SensorEvents {
  /** After every completed reinit or restart, with the new active configuration. */
  reinit: [{ initializationId: number; config: Readonly<SensorConfig> }];
  status: [SensorStatus];
  /** Before the unit restarts (simulated reboot begins). */
  restart: [];
}

export class Sensor extends EventEmitter<SensorEvents> {
  private readonly baseIdentity: SensorIdentity;
  readonly product: ProductModel;
  private readonly hal: Hal;
  private readonly db: SqliteDatabase;
  private readonly kv: KvStore;
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
  private absent: { version: string; names: ReadonlySet<string> } | undefined;
  /** Each configuration as reported, made once per configuration object (they are replaced, never changed). */
  private readonly shownConfigs = new WeakMap<object, { absent: ReadonlySet<string>; shown: SensorConfig }>();
  /** Zone Monitor's sets and live ids; offered to clients while the unit runs firmware 3.2 or later (zoneMonitorOffered). */
  readonly zones: ZoneMonitor;
  private readonly configs: ConfigState;
  private readonly configStore: ConfigStore;
  private readonly queue = new SerialQueue();
  private readonly bindAddress: string | undefined;
  /** How long a simulated reboot keeps the unit unreachable (the unit's setting; fault injection may override it). */
  private readonly ownRebootMs: number;
  private rebootMs: number;
  private currentStatus: SensorStatus = 'INITIALIZING';
  private shutdownBy: string | undefined;
  private thermal: ThermalHeader = { ...NORMAL_HEADER };
  private readonly temperatureTrend = new TemperatureTrend();
  private initId: number;
  private rebootingUntil = 0;
  private readonly recording: RecordingBinding | undefined;

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
    this.kv = new KvStore(deps.db);
    this.userData = new UserDataStore(this.kv);
    this.metadata = new SensorMetadata(this);
    this.alerts = deps.alerts;
    this.telemetry = new TelemetryMonitor({
      source: deps.hal.telemetry,
      alerts: deps.alerts,
      onError: (err) => deps.log.warn({ err }, 'telemetry read failed'),
      onSample: (reading) => {
        this.followTemperature(reading.internal_temperature_deg_c);
        this.followShutdownAlerts();
      },
    });
    // The alert_flags byte of every packet header follows the log; a shutdown alert stops the unit.
    this.alerts.subscribe(() => {
      this.hal.lidar.setAlertFlags(this.alerts.flags());
      this.followShutdownAlerts();
    });
    this.time = new TimeService({
      hal: deps.hal.time,
      kv: this.kv,
      activeConfig: () => this.config('active'),
      log: deps.log,
    });
    this.network = new NetworkService({
      hal: deps.hal.network,
      kv: this.kv,
      product: this.product,
      log: deps.log.child({ component: 'network' }),
    });
    // A reboot powers the unit on again with its persisted network settings (DELETE config removed the override).
    this.on('restart', () => {
      this.time.powerOn();
      void this.network.restore();
    });
    this.configStore = new ConfigStore(deps.db);
    this.configs = new ConfigState(this.configStore.load());
    this.zones = new ZoneMonitor({
      kv: this.kv,
      product: this.product,
      columnsPerFrame: () => resolveStreamPlan(this.product, this.configs.get('active')).columnsPerFrame,
      serialize: (change) => this.queue.run(change),
      push: (plan) => this.hal.lidar.setZones?.(plan),
      log: deps.log.child({ component: 'zone-monitor' }),
    });
    this.bindAddress = deps.bindAddress;
    this.ownRebootMs = deps.simulatedRebootMs ?? 1000;
    this.rebootMs = this.ownRebootMs;
    this.recording = deps.recording;
    this.initId = this.newInitializationId();
  }

  /** How long a simulated reboot keeps the unit unreachable now. */
  get simulatedRebootMs(): number {
    return this.rebootMs;
  }

  /** What fault injection may change in the core (src/core/fault-controls.ts). */
  readonly faultControls: CoreFaultControls = {
    setRebootMs: (ms) => {
      this.rebootMs = ms ?? this.ownRebootMs;
    },
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
    await sensor.queue.run(() => sensor.bootUnit(sensor.bootConfig()));
    sensor.telemetry.start();
    return sensor;
  }

  /** Which HAL the unit runs on (diagnostics). */
  get halKind(): HalKind {
    return this.hal.kind;
  }

  get status(): SensorStatus {
    return this.currentStatus;
  }

  /**
   * The live view's source: pictures of what the lidar stream sends, while watched (src/routes/web). Undefined
   * when the data path has no picture to give.
   */
  get preview(): LivePreview {
    const lidar = this.hal.lidar;
    return {
      watchPreview: lidar.watchPreview?.bind(lidar),
      streamState: () => ({
        config: this.config('active'),
        status: this.currentStatus,
        rebooting: this.rebooting,
        udpFaultRules: lidar.udpFaultRules?.() ?? [],
        shutdown: this.shutdownBy ? alertDefinition(this.shutdownBy).msg : undefined,
      }),
    };
  }

  /** Datagram counters of the data streams since start-up, across reinits (GET /metrics); null where unknown. */
  async streamTotals(): Promise<StreamTotals | null> {
    return (await this.hal.lidar.streamTotals?.().catch(() => null)) ?? null;
  }

  /** Damaged database files kept aside in the data directory at start (the diagnostics dump carries them). */
  damagedStoreFiles(): { name: string; path: string }[] {
    const dir = dirname(this.db.name);
    return damagedFiles(dir, DATABASE_FILE)
      .map((name) => ({ name, path: join(dir, name) }))
      .filter(({ path }) => isFile(path));
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
    const profile = this.recording?.recordedProfile;
    return profile && !(LIDAR_PROFILES as readonly string[]).includes(profile) ? profile : undefined;
  }

  get initializationId(): number {
    return this.initId;
  }

  /** True while a (simulated) reboot is under way: the unit is unreachable, HTTP answers 503. */
  get rebooting(): boolean {
    return this.rebootingUntil > 0;
  }

  /**
   * The firmware version the unit reports ("3.2.0"): the running build's, or a replayed recording's while it
   * runs its factory image. What it offers follows it, as clients gate on it: an update to 3.2 brings Zone Monitor.
   */
  get reportedFirmwareVersion(): string {
    const identity = this.identity;
    const recorded = identity.recordedFirmware && /-v(\d+\.\d+\.\d+)/.exec(identity.recordedFirmware.imageRev);
    return recorded ? recorded[1] : identity.firmware.version;
  }

  /** Whether the zone routes answer (firmware 3.2 and later); a unit of older firmware answers them 404. */
  get zoneMonitorOffered(): boolean {
    return hasZoneMonitor({ version: this.reportedFirmwareVersion });
  }

  /** Parameters this unit's firmware does not have (udp_dest_zm and udp_port_zm before 3.2): neither reported nor accepted. */
  get absentParameters(): ReadonlySet<string> {
    const version = this.reportedFirmwareVersion;
    if (this.absent?.version !== version) this.absent = { version, names: parametersNewerThan(version) };
    return this.absent.names;
  }

  /** The configuration as this unit reports it: without the parameters its firmware does not have. */
  config(view: ConfigView = 'active'): Readonly<SensorConfig> {
    const config = this.configs.get(view);
    const absent = this.absentParameters;
    if (absent.size === 0) return config;
    const cached = this.shownConfigs.get(config);
    if (cached?.absent === absent) return cached.shown;
    const copy: Record<string, unknown> = { ...config };
    for (const name of absent) delete copy[name];
    const shown = Object.freeze(copy) as unknown as SensorConfig;
    this.shownConfigs.set(config, { absent, shown });
    return shown;
  }

  /** The shutdown alert that holds the unit in ERROR (shutdown-guard.ts), or undefined. */
  get shutdownAlert(): string | undefined {
    return this.shutdownBy;
  }

  /** Bytes 16-19 of the lidar packet header as the unit stamps them now. */
  get thermalHeader(): Readonly<ThermalHeader> {
    return this.thermal;
  }

  private followTemperature(temperatureC: number | undefined): void {
    if (temperatureC === undefined) return;
    const rate = this.temperatureTrend.sample(temperatureC, Date.now());
    const header = thermalHeader(temperatureC, rate);
    if (JSON.stringify(header) === JSON.stringify(this.thermal)) return;
    this.thermal = header;
    this.hal.lidar.setThermalHeader?.(packThermalHeader(header));
  }

  /**
   * At a shutdown level the unit stops measuring (ERROR, no packets); once every shutdown alert has cleared
   * it comes back by itself, reinitializing its active configuration with a new initialization_id.
   */
  private followShutdownAlerts(): void {
    const cause = shutdownCause((id) => this.alerts.isActive(id));
    if (cause === this.shutdownBy) return;
    const was = this.shutdownBy;
    this.shutdownBy = cause;
    if (cause && !was) {
      this.log.error({ alert: cause }, 'shutdown level reached: the unit stops measuring (ERROR)');
      void this.queue.run(() => this.shutDown()).catch((err: unknown) => this.log.error({ err }, 'shutdown failed'));
    } else if (!cause && was) {
      this.log.info({ alert: was }, 'back within limits: the unit starts measuring again');
      void this.queue.run(() => this.recover()).catch((err: unknown) => this.log.error({ err }, 'recovery failed'));
    }
  }

  private async shutDown(): Promise<void> {
    if (!this.shutdownBy || this.rebooting) return;
    await this.hal.lidar.apply(null);
    // Motor and lasers off: the power model draws what an idle unit draws.
    this.hal.telemetry.applyRun(null);
    this.setStatus('ERROR');
  }

  private async recover(): Promise<void> {
    if (this.shutdownBy || this.currentStatus !== 'ERROR') return;
    this.initId = this.newInitializationId(this.initId);
    await this.bringUp(this.configs.get('active'));
  }

  /** Changes status and tells listeners (metadata, telemetry, the data plane). */
  setStatus(status: SensorStatus): void {
    if (status === this.currentStatus) return;
    this.currentStatus = status;
    this.emit('status', status);
  }

  /**
   * `POST /api/v1/sensor/config` and the legacy set_config_param: merge `input` into staged, then,
   * as the flags say, make staged active (reinit) and store active (persist). All or nothing.
   */
  changeConfig(input: unknown, flags: ChangeFlags): Promise<void> {
    const body = requireObject(input);
    return this.queue.run(async () => {
      const { values, errors, uncheckedKeys } = normalizeInput(body, this.configs.get('staged'), {
        autoDestination: flags.autoDestination,
        absent: this.absentParameters,
        recordedProfile: this.recording?.recordedProfile,
      });
      if (errors.length) throw invalidConfiguration(errors, uncheckedKeys);
      const staged: SensorConfig = { ...this.configs.get('staged'), ...values };
      if (flags.reinit) {
        await this.reinitWith(staged, flags.persist);
      } else if (flags.persist) {
        this.persist(this.configs.get('active'));
      }
      this.configs.set('staged', staged);
    });
  }

  /**
   * `PUT /api/v1/sensor/config/<name>`: this one parameter becomes active and persisted at once
   * (on top of the active configuration, not of other staged changes), and is staged too.
   */
  setParameter(name: string, value: unknown): Promise<void> {
    return this.queue.run(async () => {
      const { values, errors } = normalizeInput({ [name]: value }, this.configs.get('active'), {
        recordedProfile: this.recording?.recordedProfile,
        absent: this.absentParameters,
      });
      if (errors.length) throw invalidConfiguration(errors);
      await this.reinitWith({ ...this.configs.get('active'), ...values }, true);
      this.configs.set('staged', { ...this.configs.get('staged'), ...values });
    });
  }

  /** Legacy `reinitialize`: staged becomes active, not persisted. */
  reinitialize(): Promise<void> {
    return this.queue.run(() => this.reinitWith(this.configs.get('staged'), false));
  }

  /** Legacy `save_config_params`: store the active configuration. */
  persistActive(): Promise<void> {
    return this.queue.run(() => this.persist(this.configs.get('active')));
  }

  /**
   * `DELETE /api/v1/sensor/config`: defaults, no static IPv4 override, user data removed when its
   * policy says so — one transaction — then a restart (call `restart()` once the response is sent).
   */
  resetConfiguration(): Promise<void> {
    return this.queue.run(() => {
      const defaults = defaultConfig();
      this.db.transaction(() => {
        this.configStore.save(defaults);
        this.kv.delete(KV_KEYS.ipv4Override);
        this.userData.clearOnConfigDelete();
      })();
      this.configs.set('persisted', defaults);
    });
  }

  /**
   * Restarts the unit: streams stop, the unit is unreachable for a moment (sim), then it boots
   * the persisted configuration with a new initialization_id. Call after the response is sent.
   * After a firmware upload (reason 'firmware-update') the boot runs the new image on trial.
   * On a HAL whose reboot ends the process (linux) the service manager does the booting.
   */
  restart(reason: RebootReason = 'restart'): Promise<void> {
    this.rebootingUntil = Date.now() + this.rebootMs;
    this.setStatus(reason === 'firmware-update' ? 'UPDATING' : 'INITIALIZING');
    this.log.info({ reason }, 'restarting the unit');
    this.emit('restart');
    return this.queue.run(async () => {
      await this.hal.lidar.apply(null);
      // Powered down while rebooting: no motor, no lasers, so the power model draws nothing from the run.
      this.hal.telemetry.applyRun(null);
      crashPoint('reboot-before-boot');
      if (this.hal.power.rebootMode === 'process-exit') return this.hal.power.reboot(reason);
      try {
        await delay(Math.max(0, this.rebootingUntil - Date.now()));
        const persisted = this.bootConfig();
        this.configs.set('active', persisted);
        this.configs.set('staged', persisted);
        this.initId = this.newInitializationId(this.initId);
        await this.bootUnit(persisted);
      } finally {
        this.rebootingUntil = 0;
      }
    });
  }

  /** Throws 503 while the unit is rebooting (an unreachable real unit), for the HTTP layer. */
  assertReachable(): void {
    if (this.rebooting) {
      const seconds = Math.max(1, Math.ceil((this.rebootingUntil - Date.now()) / 1000));
      throw unavailable('the sensor is restarting', seconds);
    }
  }

  /** Waits until every queued change has finished (tests, shutdown). */
  settled(): Promise<void> {
    return this.queue.idle();
  }

  /** Stops the streams and releases the HAL; the caller closes the database afterwards. */
  async close(): Promise<void> {
    await this.queue.idle();
    this.telemetry.stop();
    await this.network.close();
    await this.hal.close();
  }

  /** The data plane's view of one initialization. */
  streamRun(config: Readonly<SensorConfig>): StreamRun {
    const plan = resolveStreamPlan(this.product, config);
    return {
      initializationId: this.initId,
      config,
      serialNumber: serialToBigInt(this.identity.serialNumber),
      plan,
      zones: this.zoneMonitorOffered ? this.zones.planFor(plan.columnsPerFrame) : null,
      bindAddress: this.bindAddress,
      timestampOffsetNs: this.hal.time.timestampOffsetNs(config),
    };
  }

  /** A new initialization_id, except on a replaying unit (its packets carry the recorded one). */
  private newInitializationId(previous?: number): number {
    return this.recording?.initializationId ?? nextInitializationId(previous);
  }

  /** What a boot runs: the persisted configuration, on a replaying unit with the recording's parameters. */
  private bootConfig(): Readonly<SensorConfig> {
    const persisted = this.configs.get('persisted');
    if (!this.recording) return persisted;
    // Stored too, so staged changes and GET ?persisted start from the recording's values.
    const bound = this.recording.bind(persisted);
    this.persist(bound);
    this.configs.set('staged', bound);
    return bound;
  }

  private async reinitWith(candidate: SensorConfig, persist: boolean): Promise<void> {
    const refusal = this.recording?.refusal(candidate, this.configs.get('active'));
    if (refusal) throw conflict(refusal);
    const errors = combinationErrors(candidate, { lidarModes: this.product.lidarModes });
    if (errors.length) throw invalidConfiguration(errors);
    const previousPersisted = this.configs.get('persisted');
    if (persist) this.persist(candidate);
    const previousInitId = this.initId;
    this.initId = this.newInitializationId(previousInitId);
    try {
      await this.bringUp(candidate);
      this.log.info(
        { initialization_id: this.initId, lidar_mode: candidate.lidar_mode, persisted: persist },
        'reinitialized',
      );
    } catch (error) {
      this.log.error({ err: error }, 'reinit failed; restoring the previous configuration');
      if (persist) this.persist(previousPersisted);
      this.initId = previousInitId;
      await this.bringUp(this.configs.get('active')).catch((e: unknown) =>
        this.log.error({ err: e }, 'restoring failed'),
      );
      throw error instanceof ApiError
        ? error
        : new ApiError(
            'internal',
            'the sensor could not apply the configuration; the previous configuration stays active',
          );
    }
  }

  /**
   * One boot: the firmware slot state picks the image (the first boot of a new one shows UPDATING;
   * a failing one resets the unit until it is rolled back), the configuration comes up, and a new
   * image that got this far is committed. The unit is reachable from the moment its image starts.
   */
  private async bootUnit(config: Readonly<SensorConfig>): Promise<void> {
    await this.firmware.boot({
      starting: (kind) => {
        this.rebootingUntil = 0;
        this.setStatus(kind === 'trial' ? 'UPDATING' : 'INITIALIZING');
      },
      failedAttempt: async () => {
        // A watchdog reset: unreachable again for a reboot time.
        this.rebootingUntil = Date.now() + this.rebootMs;
        this.setStatus('INITIALIZING');
        await delay(this.rebootMs);
      },
    });
    await this.bringUp(config);
    await this.firmware
      .confirmHealthy()
      .catch((error: unknown) =>
        this.log.error({ err: error }, 'committing the new firmware image failed; it stays on trial'),
      );
  }

  /** INITIALIZING → the HAL runs `config` → RUNNING or STANDBY (ERROR, without streams, at a shutdown level). */
  private async bringUp(config: Readonly<SensorConfig>): Promise<void> {
    this.setStatus('INITIALIZING');
    this.hal.time.markInitialization();
    // The previous run ends here: alerts about it no longer hold (the new run raises its own).
    this.alerts.clearForReinit();
    this.hal.lidar.setAlertFlags(this.alerts.flags());
    const down = this.shutdownBy !== undefined;
    const streaming = config.operating_mode === 'NORMAL' && !down;
    await this.hal.lidar.apply(streaming ? this.streamRun(config) : null);
    this.hal.telemetry.applyRun(down ? null : this.streamRun(config));
    this.configs.set('active', config);
    this.setStatus(down ? 'ERROR' : streaming ? 'RUNNING' : 'STANDBY');
    this.emit('reinit', { initializationId: this.initId, config });
  }

  private persist(config: Readonly<SensorConfig>): void {
    this.configStore.save(config);
    this.configs.set('persisted', config);
  }
}

function requireObject(input: unknown): Record<string, unknown> {
  if (input === undefined) throw badRequest('the request needs a JSON object of configuration parameters as its body');
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw badRequest(
      `the body must be a JSON object of configuration parameters; got ${input === null ? 'null' : Array.isArray(input) ? 'a list' : typeof input}`,
    );
  }
  return input as Record<string, unknown>;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
