/**
 * The shapes the device core's Sensor is built from and hands out: what a unit gives it, what a replayed
 * recording fixes, the flags of a configuration change and the events it emits.
 * Apart from sensor.ts so that its parts (config-lifecycle.ts, power-state.ts, unit-run.ts) share them.
 */
import type { Logger } from 'pino';
import type { AlertLog } from '../alerts/index.js';
import type { SensorConfig } from '../config/index.js';
import type { Hal } from '../hal/index.js';
import type { GnssPlan, SensorIdentity } from '../model/index.js';
import type { SqliteDatabase } from '../store/index.js';
import type { FirmwarePolicy } from './firmware/firmware-trust.js';
import type { AddressMove } from './bound-address.js';
import type { SensorStatus } from './status.js';
import type { RecordedZoneSet } from './zones/zone-set.js';

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
  /** The GNSS receiver on the NMEA input (`--gnss`); default DEFAULT_GNSS. */
  gnss?: GnssPlan;
  /** Largest firmware image an upload may hold (`--firmware-max-bytes`). */
  firmwareMaxBytes?: number;
  /** Which firmware images install (`--firmware-trust`, `--firmware-min-version`); default any intact one. */
  firmwarePolicy?: FirmwarePolicy;
  /** Set when the unit replays a recording (`--replay`): what the recording fixes. */
  recording?: RecordingBinding;
  /** How long one zone set may take to render before it is refused (tests shorten it). */
  zoneRenderTimeLimitMs?: number;
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
  /**
   * The recorded unit's active zone set (firmware 3.2) and the live ids its zone packets report: served as
   * the unit's own while it replays, and not to be changed (the packets were watched with them). Absent
   * when the recording carries no zone set.
   */
  zoneSet?: RecordedZoneSet;
}

/** Flags of a configuration change (docs/client-behaviour.md): reinit makes staged active, persist stores active. */
export interface ChangeFlags {
  reinit: boolean;
  persist: boolean;
}

export interface SensorEvents {
  /** After every completed reinit or restart, with the new active configuration. */
  reinit: [{ initializationId: number; config: Readonly<SensorConfig> }];
  status: [SensorStatus];
  /** Before the unit restarts (simulated reboot begins). */
  restart: [];
  /** The network settings moved the address the unit is bound to: its listener and mDNS move there. */
  address: [AddressMove];
}
