/**
 * A unit's device core, wired together once, each part given exactly what it needs of the others and never
 * the Sensor that will hold them: the events, the one serial queue, what the running firmware offers
 * (firmware-offer.ts), the configuration lifecycle (config-lifecycle.ts: staged, active, persisted), the run
 * both end in (unit-run.ts: status, initialization_id, the streams), the power state (power-state.ts:
 * restart, reboot, shutdown, thermal header, followed from telemetry and the alert log), Zone Monitor's sets
 * (zones/), and the services of time, network, metadata and user data. The lifecycle's parts call each other
 * (a reinit runs, a power-on boots the configuration, a shutdown stops the run), so each is given the others
 * lazily. The Sensor (sensor.ts) holds what this returns and runs the unit's start and stop.
 */
import { EventEmitter } from 'node:events';
import { ConfigState, ConfigStore } from '../config/index.js';
import { resolveFrameFormat, type SensorIdentity } from '../model/index.js';
import { KvStore, storageGateOf } from '../store/index.js';
import { BoundAddress } from './bound-address.js';
import { ConfigLifecycle } from './config-lifecycle.js';
import type { CoreFaultControls } from './fault-controls.js';
import type { FirmwareManager } from './firmware/firmware-manager.js';
import { FirmwareOffer, runningIdentity } from './firmware-offer.js';
import { type LivePreview, livePreview } from './live-preview.js';
import { SensorMetadata } from './metadata.js';
import { NetworkService } from './network-service.js';
import { PowerState } from './power-state.js';
import type { SensorDependencies, SensorEvents } from './sensor-types.js';
import { SerialQueue } from './serial-queue.js';
import { StorageState } from './storage-state.js';
import { TelemetryMonitor } from './telemetry-monitor.js';
import { TimeService } from './time-service.js';
import { UnitRun } from './unit-run.js';
import { UserDataStore } from './user-data.js';
import { ZoneMonitor } from './zones/zone-monitor.js';

/** The configuration lifecycle, the run, the power state, and what drives them (zones, telemetry). */
export interface UnitLifecycle {
  zones: ZoneMonitor;
  run: UnitRun;
  configs: ConfigLifecycle;
  power: PowerState;
  /** Telemetry samples: the temperature drives the thermal header and shutdown (power-state.ts). */
  telemetry: TelemetryMonitor;
}

/** Every part of a unit's device core. */
export interface UnitParts extends UnitLifecycle {
  /** What the unit tells its listeners (sensor-types.ts, SensorEvents). */
  events: EventEmitter<SensorEvents>;
  /** The unit's one serial queue: every change, reinit and restart runs through it. */
  queue: SerialQueue;
  offer: FirmwareOffer;
  /** Who the unit is now: its firmware build is the running slot's (firmware-offer.ts, runningIdentity). */
  identity(): SensorIdentity;
  storage: StorageState;
  userData: UserDataStore;
  time: TimeService;
  network: NetworkService;
  metadata: SensorMetadata;
  preview: LivePreview;
  faultControls: CoreFaultControls;
}

/** What the lifecycle's parts share with the services composed around them. */
interface Shared {
  kv: KvStore;
  firmware: FirmwareManager;
  queue: SerialQueue;
  userData: Pick<UserDataStore, 'clearOnConfigDelete'>;
  events: Pick<EventEmitter<SensorEvents>, 'emit'>;
  offer: FirmwareOffer;
  /** The local address the data streams leave from now (bound-address.ts). */
  dataSource(): string | undefined;
}

export function composeUnit(deps: SensorDependencies, firmware: FirmwareManager): UnitParts {
  const events = new EventEmitter<SensorEvents>();
  const queue = new SerialQueue();
  const kv = new KvStore(deps.db);
  const userData = new UserDataStore(kv);
  const bound = new BoundAddress(deps.bindAddress);
  const identity = () => runningIdentity(deps.identity, firmware);
  const offer = new FirmwareOffer({
    identity,
    runningImageRev: () => firmware.runningImageRev,
  });
  const lifecycle = composeLifecycle(deps, {
    kv,
    firmware,
    queue,
    userData,
    events,
    offer,
    dataSource: () => bound.current,
  });
  const { configs, run, power } = lifecycle;
  const time = new TimeService({
    hal: deps.hal.time,
    kv,
    activeConfig: () => configs.reported('active'),
    log: deps.log,
  });
  const network = new NetworkService({
    hal: deps.hal.network,
    kv,
    product: deps.identity.product,
    log: deps.log.child({ component: 'network' }),
    bound,
    onAddressMoved: (move) => events.emit('address', move),
  });
  // A reboot powers the unit on again with its persisted network settings (DELETE config removed the override).
  events.on('restart', () => {
    time.powerOn();
    void network.restore();
  });
  const metadata = new SensorMetadata({
    identity,
    initializationId: () => run.initializationId,
    status: () => run.status,
    config: () => configs.reported('active'),
  });
  const preview = livePreview(deps.hal.streams, {
    config: (view) => configs.reported(view),
    status: () => run.status,
    rebooting: () => power.rebooting,
    shutdownAlert: () => power.shutdownAlert,
  });
  const faultControls: CoreFaultControls = {
    setRebootMs: (ms) => power.setRebootMs(ms),
    setUploadFilter: (filter) => firmware.setUploadFilter(filter),
    restart: () => power.restart(),
    holdAlert: (id, vars) => deps.alerts.hold(id, vars),
    releaseAlert: (id, reason) => deps.alerts.release(id, reason),
    setStorageFault: (fault) => storageGateOf(deps.db).set(fault),
  };
  const storage = new StorageState(deps.log.child({ component: 'storage' }));
  return {
    ...lifecycle,
    events,
    queue,
    offer,
    identity,
    storage,
    userData,
    time,
    network,
    metadata,
    preview,
    faultControls,
  };
}

function composeLifecycle(deps: SensorDependencies, shared: Shared): UnitLifecycle {
  const { kv, firmware, queue, userData, events, offer } = shared;
  const product = deps.identity.product;
  const store = new ConfigStore(deps.db);
  const state = new ConfigState(store.load());
  const zones = new ZoneMonitor({
    kv,
    product,
    columnsPerFrame: () => resolveFrameFormat(product, state.get('active')).columnsPerFrame,
    serialize: (change) => queue.run(change),
    push: (plan) => deps.hal.streams.zones?.setZones(plan),
    watcher: deps.hal.streams.zones?.watcher ?? null,
    log: deps.log.child({ component: 'zone-monitor' }),
    recorded: deps.recording?.zoneSet,
    renderTimeLimitMs: deps.zoneRenderTimeLimitMs,
    alerts: deps.alerts,
  });
  const run: UnitRun = new UnitRun({
    zonePlan: (columns) => (offer.zoneMonitor ? zones.planFor(columns) : null),
    ...deps,
    product,
    serialNumber: () => deps.identity.serialNumber,
    configs: state,
    events,
    shutDown: () => power.shutdownAlert !== undefined,
    dataSource: shared.dataSource,
  });
  const configs: ConfigLifecycle = new ConfigLifecycle({
    ...deps,
    configs: state,
    store,
    kv,
    userData,
    queue,
    run,
    product,
    absentParameters: () => offer.absentParameters,
    announceRestart: () => power.announceRestart(),
    absentValues: () => offer.absentValues,
    shown: (config) => offer.shown(config),
  });
  const power: PowerState = new PowerState({
    ...deps,
    firmware,
    run,
    queue,
    events,
    rebootMs: deps.simulatedRebootMs ?? 1000,
    powerOn: () => configs.powerOn(),
    activeConfig: () => configs.get('active'),
  });
  const telemetry = new TelemetryMonitor({
    source: deps.hal.telemetry,
    alerts: deps.alerts,
    onError: (err) => deps.log.warn({ err }, 'telemetry read failed'),
    onSample: (reading) => power.followSample(reading.internal_temperature_deg_c),
  });
  // The alert_flags byte of every packet header follows the log; a shutdown alert stops the unit.
  deps.alerts.subscribe(() => {
    deps.hal.streams.setAlertFlags(deps.alerts.flags());
    power.followShutdownAlerts();
  });
  return { zones, run, configs, power, telemetry };
}
