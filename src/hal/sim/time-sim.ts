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
import { clockIdentityFromMac, type SensorConfig, systemRealtimeNs } from '../../model/index.js';
import { DEFAULT_PTP_PROFILE, type PtpProfile } from '../ptp-profiles.js';
import type { ChronyTracking, PtpDataSets, SystemClockReading, TimeHal, TimingInputs } from '../time.js';
import { idleTimingInputs, localPtpDataSets, systemClockReading, unsynchronisedTracking } from '../time-models.js';

/** chrony without a selectable source: never changes on a simulated unit. */
const UNSYNCHRONISED: ChronyTracking = Object.freeze(unsynchronisedTracking());

export class SimTime implements TimeHal {
  private readonly clockIdentity: string;
  private profile: PtpProfile = DEFAULT_PTP_PROFILE;
  private powerOnNs = 0n;
  private lastInitNs = 0n;
  private ptpOffset = 0n;
  private dataSets: PtpDataSets | undefined;

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

  tracking(): ChronyTracking {
    return UNSYNCHRONISED;
  }

  ptpDataSets(): PtpDataSets {
    // Unchanged until the profile changes: the same object each time, so its JSON is made once.
    return (this.dataSets ??= localPtpDataSets(this.clockIdentity, this.profile));
  }

  async applyPtpProfile(profile: PtpProfile): Promise<void> {
    this.profile = profile;
    this.dataSets = undefined;
  }

  timingInputs(): TimingInputs {
    return idleTimingInputs();
  }

  async close(): Promise<void> {}
}
