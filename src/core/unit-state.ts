/**
 * The unit's state and what changes it, wired together once: the configuration (staged, active, persisted:
 * config-lifecycle.ts), the run both end in (unit-run.ts: status, initialization_id, the streams), the power
 * state (power-state.ts: restart, reboot, shutdown, thermal header, followed from telemetry and the alert log)
 * and Zone Monitor's sets (zones/), which the run hands to the data plane. They call each other (a reinit runs, a power-on boots the configuration,
 * a shutdown stops the run), so each is given the others lazily. The Sensor composes what this returns.
 */
import type { EventEmitter } from 'node:events';
import { ConfigState, ConfigStore } from '../config/index.js';
import { resolveFrameFormat, type SensorIdentity } from '../model/index.js';
import type { KvStore } from '../store/index.js';
import { ConfigLifecycle } from './config-lifecycle.js';
import type { FirmwareManager } from './firmware/firmware-manager.js';
import { PowerState } from './power-state.js';
import { TelemetryMonitor } from './telemetry-monitor.js';
import type { SensorDependencies, SensorEvents } from './sensor-types.js';
import type { SerialQueue } from './serial-queue.js';
import { UnitRun } from './unit-run.js';
import type { UserDataStore } from './user-data.js';
import { ZoneMonitor } from './zones/zone-monitor.js';

/** What the parts share with the Sensor that holds them. */
export interface UnitStateShared {
  kv: KvStore;
  firmware: FirmwareManager;
  /** The unit's one serial queue: every change, reinit and restart runs through it. */
  queue: SerialQueue;
  userData: Pick<UserDataStore, 'clearOnConfigDelete'>;
  events: Pick<EventEmitter<SensorEvents>, 'emit'>;
}

/** What the parts ask of the Sensor as it is at the time (its running firmware can change under them). */
export interface UnitStateView {
  identity(): SensorIdentity;
  zoneMonitorOffered(): boolean;
  absentParameters(): ReadonlySet<string>;
  /** The local address the data streams leave from now (bound-address.ts). */
  dataSource(): string | undefined;
  absentValues(): ReadonlyMap<string, readonly unknown[]>;
}

export interface UnitState {
  zones: ZoneMonitor;
  run: UnitRun;
  configs: ConfigLifecycle;
  power: PowerState;
  /** Telemetry samples: the temperature drives the thermal header and shutdown (power-state.ts). */
  telemetry: TelemetryMonitor;
}

export function composeUnitState(deps: SensorDependencies, shared: UnitStateShared, sensor: UnitStateView): UnitState {
  const { kv, firmware, queue, userData, events } = shared;
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
    zonePlan: (columns) => (sensor.zoneMonitorOffered() ? zones.planFor(columns) : null),
    ...deps,
    product,
    serialNumber: () => sensor.identity().serialNumber,
    configs: state,
    events,
    shutDown: () => power.shutdownAlert !== undefined,
    dataSource: () => sensor.dataSource(),
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
    absentParameters: sensor.absentParameters,
    announceRestart: () => power.announceRestart(),
    absentValues: sensor.absentValues,
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
