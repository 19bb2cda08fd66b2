/**
 * The clocks of a simulated unit. It has no grandmaster and no time source for chrony, so:
 * - PTP: a slave-only ptp4l listening for a grandmaster that never comes (port LISTENING, its own
 *   clock identity as grandmaster, gm_present false), with the port settings of the active profile.
 * - tracking: chrony with no selectable source ("not synchronised").
 * - Timestamp clocks: the internal oscillator counts from the simulated power-on; the PTP clock
 *   free-runs from the UTC time of power-on (like a PHC the driver set from the system clock at boot;
 *   it does not follow later steps of the host's clock); SYNC_PULSE_IN counts from 0 at each
 *   initialization and never locks (no pulses).
 */
import { clockIdentityFromMac, type SensorConfig } from '../../model/index.js';
import { systemRealtimeNs } from '../realtime-clock.js';
import { DEFAULT_PTP_PROFILE, type PtpProfile } from '../ptp-profiles.js';
import type { ChronyTracking, PtpDataSets, SystemClockReading, TimeHal, TimingInputs } from '../time.js';
import type { TimeFaults } from '../faults.js';
import {
  idleTimingInputs,
  localPtpDataSets,
  systemClockReading,
  unsynchronisedTracking,
  withGrandmaster,
  withSyncPulses,
} from '../time-models.js';

/** chrony without a selectable source: never changes on a simulated unit. */
const UNSYNCHRONISED: ChronyTracking = Object.freeze(unsynchronisedTracking());

export class SimTime implements TimeHal {
  private readonly clockIdentity: string;
  private profile: PtpProfile = DEFAULT_PTP_PROFILE;
  private powerOnNs = 0n;
  private lastInitNs = 0n;
  private ptpOffset = 0n;
  private dataSets: PtpDataSets | undefined;
  private grandmaster: { from: PtpDataSets; to: PtpDataSets } | undefined;
  private grandmasterPresent = false;
  private syncPulsesSinceMs: number | undefined;
  private readingsChanged: () => void = () => undefined;
  /** The readings change only with the profile and the injected grandmaster, which say so. */
  readonly readingsTtlMs = Number.POSITIVE_INFINITY;

  /** Fault injection brings a grandmaster and sync pulses the simulated network and pins lack. */
  readonly faults: TimeFaults = {
    setGrandmaster: (present) => {
      this.grandmasterPresent = present;
      this.readingsChanged();
    },
    setSyncPulses: (sinceMs) => {
      this.syncPulsesSinceMs = sinceMs;
    },
  };

  /** `mac`: the simulated interface's MAC, from which ptp4l derives the clock identity. */
  constructor(mac: string) {
    this.clockIdentity = clockIdentityFromMac(mac);
    this.markPowerOn();
  }

  timestampOffsetNs(config: SensorConfig): bigint {
    switch (config.timestamp_mode) {
      case 'TIME_FROM_INTERNAL_OSC':
        return -this.powerOnNs;
      case 'TIME_FROM_PTP_1588':
        return this.ptpOffset;
      case 'TIME_FROM_SYNC_PULSE_IN':
        return -this.lastInitNs;
    }
  }

  markInitialization(): void {
    this.lastInitNs = process.hrtime.bigint();
  }

  markPowerOn(): void {
    const now = process.hrtime.bigint();
    this.powerOnNs = now;
    this.lastInitNs = now;
    this.ptpOffset = systemRealtimeNs() - process.hrtime.bigint();
  }

  systemClock(): SystemClockReading {
    return systemClockReading();
  }

  onReadingsChanged(listener: () => void): void {
    this.readingsChanged = listener;
  }

  async tracking(): Promise<ChronyTracking> {
    return UNSYNCHRONISED;
  }

  async ptpDataSets(): Promise<PtpDataSets> {
    // Unchanged until the profile or the grandmaster changes: the same object each time, so its JSON is made once.
    const local = (this.dataSets ??= localPtpDataSets(this.clockIdentity, this.profile));
    if (!this.grandmasterPresent) return local;
    if (this.grandmaster?.from !== local) this.grandmaster = { from: local, to: withGrandmaster(local) };
    return this.grandmaster.to;
  }

  async applyPtpProfile(profile: PtpProfile): Promise<void> {
    this.profile = profile;
    this.dataSets = undefined;
    this.readingsChanged();
  }

  timingInputs(): TimingInputs {
    const since = this.syncPulsesSinceMs;
    return since === undefined ? idleTimingInputs() : withSyncPulses(idleTimingInputs(), Date.now() - since);
  }

  async close(): Promise<void> {}
}
