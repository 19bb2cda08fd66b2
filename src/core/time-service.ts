/**
 * The time resources of the unit (`GET /api/v1/time…`) and its PTP profile. The HAL provides the
 * clocks and daemons' reports; this service adds what follows from the active configuration
 * (timestamp mode, sync pulse and NMEA settings) and keeps the profile persisted in the kv table.
 *
 * It also keeps the HAL's readings (tracking, PTP data sets) for as long as the HAL says they stay
 * current, so pollers cost one daemon query per period and, while a reading is fresh, no promise
 * (`ptpAtHand`, `trackingAtHand`). Identity rule: a reading and the PTP document made from it are the
 * same object until they change, and never mutated (they are typed deeply read-only): the routes
 * render their JSON once per object.
 */
import type { Logger } from 'pino';
import type { SensorConfig } from '../config/index.js';
import { TtlCache } from '../model/index.js';
import {
  type ChronyTracking,
  DEFAULT_PTP_PROFILE,
  isPtpProfile,
  PTP_PROFILES,
  type PtpDataSets,
  type PtpProfile,
  type SystemClockReading,
  type TimeHal,
  type TimingInputs,
} from '../hal/index.js';

/** The profile names, for the HTTP layer (which does not reach into the HAL). */
export { PTP_PROFILES };
import { KV_KEYS, type KvStore } from '../store/index.js';
import type { PtpTime, SensorTime, SystemTime, TimeDocument } from './time-documents.js';
import { SerialQueue } from './serial-queue.js';

// The documents' shapes are stated once, as schemas (time-documents.ts); their types derive from them.
export type { PtpTime, SensorTime, SystemTime, TimeDocument } from './time-documents.js';

export interface TimeServiceDependencies {
  hal: TimeHal;
  kv: KvStore;
  /** The configuration the unit runs (the one the data plane stamps packets for). */
  activeConfig: () => Readonly<SensorConfig>;
  log: Logger;
}

const NS_PER_S = 1_000_000_000n;

/** The live clocks of the sensor section, read at one instant. */
export interface SensorClocks {
  time: number;
  internal_osc: number;
  ptp_1588: number;
  sync_pulse_in: number;
}

type TimestampMode = SensorConfig['timestamp_mode'];

/** The configuration once per timestamp mode: the HAL's offset is asked per mode, per request. */
type ModeConfigs = Record<TimestampMode, SensorConfig>;
const modeConfigsOf = new WeakMap<Readonly<SensorConfig>, ModeConfigs>();

function modeConfigs(config: Readonly<SensorConfig>): ModeConfigs {
  let configs = modeConfigsOf.get(config);
  if (!configs) {
    const withMode = (timestamp_mode: TimestampMode): SensorConfig => ({ ...config, timestamp_mode });
    configs = {
      TIME_FROM_INTERNAL_OSC: withMode('TIME_FROM_INTERNAL_OSC'),
      TIME_FROM_PTP_1588: withMode('TIME_FROM_PTP_1588'),
      TIME_FROM_SYNC_PULSE_IN: withMode('TIME_FROM_SYNC_PULSE_IN'),
    };
    modeConfigsOf.set(config, configs);
  }
  return configs;
}

/** Seconds of the clock `mode` selects at hrtime `nowNs`, as the data plane stamps them. */
function clockSeconds(hal: TimeHal, configs: ModeConfigs, mode: TimestampMode, nowNs: bigint): number {
  const ns = nowNs + hal.timestampOffsetNs(configs[mode]);
  return Number(ns / NS_PER_S) + Number(ns % NS_PER_S) / 1e9;
}

export class TimeService {
  private readonly hal: TimeHal;
  private readonly kv: KvStore;
  private readonly activeConfig: () => Readonly<SensorConfig>;
  private readonly log: Logger;
  /** Profile changes one at a time, so ptp4l's file and the stored value always agree. */
  private readonly profileQueue = new SerialQueue();
  private lastPtp: { dataSets: PtpDataSets; document: PtpTime } | undefined;
  private readonly ptpReadings: TtlCache<PtpDataSets>;
  private readonly trackingReadings: TtlCache<ChronyTracking>;

  constructor(deps: TimeServiceDependencies) {
    this.hal = deps.hal;
    this.kv = deps.kv;
    this.activeConfig = deps.activeConfig;
    this.log = deps.log;
    this.ptpReadings = new TtlCache(() => this.hal.ptpDataSets(), this.hal.readingsTtlMs);
    this.trackingReadings = new TtlCache(() => this.hal.tracking(), this.hal.readingsTtlMs);
    this.hal.onReadingsChanged(() => {
      this.ptpReadings.invalidate();
      this.trackingReadings.invalidate();
    });
  }

  /** At boot: the PTP daemon gets the persisted profile. A failure is logged; the unit still comes up. */
  restore(): Promise<void> {
    return this.profileQueue.run(() =>
      this.hal
        .applyPtpProfile(this.profile())
        .catch((error: unknown) => this.log.error({ err: error }, 'applying the persisted PTP profile failed')),
    );
  }

  /** The unit powers on again (simulated reboot): its internal oscillator restarts. */
  powerOn(): void {
    this.hal.markPowerOn();
  }

  profile(): PtpProfile {
    const stored = this.kv.get<unknown>(KV_KEYS.ptpProfile);
    return isPtpProfile(stored) ? stored : DEFAULT_PTP_PROFILE;
  }

  /** `PUT /api/v1/time/ptp/profile`: applies a profile (the route checked it) to the PTP daemon, persists; no reinit. */
  setProfile(profile: PtpProfile): Promise<PtpProfile> {
    return this.profileQueue.run(async () => {
      await this.hal.applyPtpProfile(profile);
      this.kv.set(KV_KEYS.ptpProfile, profile);
      this.ptpReadings.invalidate();
      return profile;
    });
  }

  /** The configuration the sensor section describes (a frozen object, replaced on change). */
  activeConfiguration(): Readonly<SensorConfig> {
    return this.activeConfig();
  }

  /** What the timing inputs have seen; the same object while nothing changed. */
  timingInputs(): TimingInputs {
    return this.hal.timingInputs();
  }

  /** The sensor section's clocks now: the timestamp clock of `config` and whole seconds of all three. */
  sensorClocks(config: Readonly<SensorConfig>): SensorClocks {
    const now = process.hrtime.bigint();
    const configs = modeConfigs(config);
    return {
      time: clockSeconds(this.hal, configs, config.timestamp_mode, now),
      internal_osc: Math.floor(clockSeconds(this.hal, configs, 'TIME_FROM_INTERNAL_OSC', now)),
      ptp_1588: Math.floor(clockSeconds(this.hal, configs, 'TIME_FROM_PTP_1588', now)),
      sync_pulse_in: Math.floor(clockSeconds(this.hal, configs, 'TIME_FROM_SYNC_PULSE_IN', now)),
    };
  }

  /** chrony's tracking report: the fresh reading, or the HAL's next one. */
  tracking(): Promise<ChronyTracking> {
    return this.trackingReadings.get();
  }

  /** The tracking report while the reading is fresh, without a promise; else undefined (call `tracking`). */
  trackingAtHand(): ChronyTracking | undefined {
    return this.trackingReadings.fresh();
  }

  systemClock(): SystemClockReading {
    return this.hal.systemClock();
  }

  sensor(): SensorTime {
    const config = this.activeConfig();
    const clocks = this.sensorClocks(config);
    const inputs = this.hal.timingInputs();
    return {
      multipurpose_io: {
        mode: config.multipurpose_io_mode,
        nmea: {
          baud_rate: config.nmea_baud_rate,
          diagnostics: { decoding: inputs.nmea.decoding, io_checks: inputs.nmea.io_checks },
          ignore_valid_char: config.nmea_ignore_valid_char,
          leap_seconds: config.nmea_leap_seconds,
          locked: inputs.nmea.locked ? 1 : 0,
          polarity: config.nmea_in_polarity,
        },
        sync_pulse_out: {
          angle_deg: config.sync_pulse_out_angle,
          frequency_hz: config.sync_pulse_out_frequency,
          polarity: config.sync_pulse_out_polarity,
          pulse_width_ms: config.sync_pulse_out_pulse_width,
        },
      },
      sync_pulse_in: {
        diagnostics: {
          count: inputs.syncPulseIn.count,
          count_unfiltered: inputs.syncPulseIn.count_unfiltered,
          last_period_nsec: inputs.syncPulseIn.last_period_nsec,
        },
        locked: inputs.syncPulseIn.locked ? 1 : 0,
        polarity: config.sync_pulse_in_polarity,
      },
      timestamp: {
        mode: config.timestamp_mode,
        time: clocks.time,
        time_options: {
          internal_osc: clocks.internal_osc,
          ptp_1588: clocks.ptp_1588,
          sync_pulse_in: clocks.sync_pulse_in,
        },
      },
    };
  }

  async system(): Promise<SystemTime> {
    const tracking = await this.tracking();
    const { monotonic, realtime } = this.hal.systemClock();
    return { monotonic, realtime, tracking };
  }

  /** The same object while the data sets and the profile are unchanged, so its JSON can be made once (routes). */
  async ptp(): Promise<PtpTime> {
    return this.ptpDocument(await this.ptpReadings.get());
  }

  /** `ptp()` while the reading is fresh, without a promise; else undefined (call `ptp`). */
  ptpAtHand(): PtpTime | undefined {
    const dataSets = this.ptpReadings.fresh();
    return dataSets && this.ptpDocument(dataSets);
  }

  private ptpDocument(dataSets: PtpDataSets): PtpTime {
    const profile = this.profile();
    const last = this.lastPtp;
    if (last?.dataSets !== dataSets || last.document.profile !== profile) {
      this.lastPtp = { dataSets, document: Object.freeze({ ...dataSets, profile }) };
    }
    return this.lastPtp!.document;
  }

  async all(): Promise<TimeDocument> {
    const [ptp, system] = await Promise.all([this.ptp(), this.system()]);
    return { ptp, sensor: this.sensor(), system };
  }
}
