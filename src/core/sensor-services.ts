/**
 * The lifecycle's parts as the routes reach them through the Sensor (sensor.ts, SensorServices): the
 * configuration (staged, active, persisted), the power state, the run, and what the running firmware offers,
 * each narrowed to what a caller may do; the unit's own steps (boot, power-on, reinit) stay with the core.
 */
import type { ConfigLifecycle } from './config-lifecycle.js';
import type { FirmwareOffer } from './firmware-offer.js';
import type { PowerState } from './power-state.js';
import type { UnitRun } from './unit-run.js';

/** The configuration lifecycle (config-lifecycle.ts): what a client reads and changes. */
export type ConfigService = Pick<
  ConfigLifecycle,
  'reported' | 'recordedOnlyProfile' | 'check' | 'change' | 'setParameter' | 'reinitialize' | 'persistActive' | 'reset'
>;

/** The power state (power-state.ts): restart, reboot, shutdown, thermal header. */
export type PowerService = Pick<
  PowerState,
  | 'rebooting'
  | 'simulatedRebootMs'
  | 'shutdownAlert'
  | 'thermalHeader'
  | 'announceRestart'
  | 'restart'
  | 'assertReachable'
  | 'reachable'
>;

/** The run's state (unit-run.ts): status, initialization_id, the stream plan and the data's source address. */
export type RunService = Pick<
  UnitRun,
  'status' | 'initializationId' | 'setStatus' | 'dataSourceTowards' | 'streamPlan'
>;

/** What the running firmware offers clients (firmware-offer.ts). */
export type OfferService = Pick<FirmwareOffer, 'reportedVersion' | 'zoneMonitor' | 'absentParameters' | 'absentValues'>;
