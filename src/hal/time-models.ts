/**
 * Time facts shared by the simulated and the Linux HAL: the OS clocks, what chrony reports with no
 * time source, and the PTP data sets of a slave-only ptp4l that has no grandmaster (values as a
 * real ptp4l reports them, captured with pmc).
 */
import { systemRealtimeNs } from './realtime-clock.js';
import { DELAY_MECHANISM_CODES, ptp4lSettings, type PtpProfile } from './ptp-profiles.js';
import type { ChronyTracking, PtpDataSets, SystemClockReading, TimingInputs } from './time.js';

const NS_PER_S = 1e9;

/** process.hrtime is CLOCK_MONOTONIC on Linux (seconds since boot); realtime is the OS wall clock. */
export function systemClockReading(): SystemClockReading {
  return { monotonic: Number(process.hrtime.bigint()) / NS_PER_S, realtime: Number(systemRealtimeNs()) / NS_PER_S };
}

/**
 * realtime − monotonic, stable between calls: Date.now() only has millisecond resolution, so each
 * sample is off by up to 1 ms. The anchor keeps its value until a sample disagrees by more than
 * 2 ms, which only happens when the system clock is stepped (then it follows the new time).
 */
export class RealtimeAnchor {
  private anchorNs: bigint | undefined;

  offsetNs(): bigint {
    // Date.now() truncates to the millisecond: the true offset lies in [sample, sample + 1 ms).
    const sample = BigInt(Date.now()) * 1_000_000n + 500_000n - process.hrtime.bigint();
    if (this.anchorNs === undefined || abs(sample - this.anchorNs) > 2_000_000n) this.anchorNs = sample;
    return this.anchorNs;
  }
}

const abs = (v: bigint) => (v < 0n ? -v : v);

/** `chronyc -c tracking` of a chronyd with no selectable source (values exactly as chrony prints them). */
export function unsynchronisedTracking(): ChronyTracking {
  return {
    reference_id: '00000000',
    remote_host: '',
    stratum: 0,
    ref_time_utc: 0,
    system_time_offset: 0,
    last_offset: 0,
    rms_offset: 0,
    frequency: 0,
    residual_frequency: 0,
    skew: 0,
    root_delay: 1,
    root_dispersion: 1,
    update_interval: 0,
    leap_status: 'not synchronised',
  };
}

/**
 * The data sets of a slave-only ptp4l without a grandmaster: the unit is its own parent and
 * grandmaster, clockClass 255 (slave-only), gm_present false. `portState` is LISTENING for a
 * running daemon and DISABLED when no PTP daemon answers at all. Port settings follow the profile.
 */
export function localPtpDataSets(clockIdentity: string, profile: PtpProfile, portState = 'LISTENING'): PtpDataSets {
  const settings = ptp4lSettings(profile);
  const int = (v: string) => Number.parseInt(v, 10);
  return {
    current_data_set: { steps_removed: 0, offset_from_master: 0, mean_path_delay: 0 },
    parent_data_set: {
      parent_port_identity: `${clockIdentity}-0`,
      parent_stats: 0,
      observed_parent_offset_scaled_log_variance: 0xffff,
      observed_parent_clock_phase_change_rate: 0x7fffffff,
      grandmaster_priority1: int(settings.priority1),
      gm_clock_class: 255,
      gm_clock_accuracy: 0xfe,
      gm_offset_scaled_log_variance: 0xffff,
      grandmaster_priority2: int(settings.priority2),
      grandmaster_identity: clockIdentity,
    },
    port_data_set: {
      port_identity: `${clockIdentity}-1`,
      port_state: portState,
      log_min_delay_req_interval: int(settings.logMinDelayReqInterval),
      peer_mean_path_delay: 0,
      log_announce_interval: int(settings.logAnnounceInterval),
      announce_receipt_timeout: int(settings.announceReceiptTimeout),
      log_sync_interval: int(settings.logSyncInterval),
      delay_mechanism: DELAY_MECHANISM_CODES[settings.delay_mechanism] ?? 1,
      log_min_pdelay_req_interval: int(settings.logMinPdelayReqInterval),
      version_number: 2,
    },
    time_properties_data_set: {
      current_utc_offset: 37,
      leap61: 0,
      leap59: 0,
      current_utc_offset_valid: 0,
      ptp_timescale: 0,
      time_traceable: 0,
      frequency_traceable: 0,
      time_source: 0xa0,
    },
    time_status_np: {
      master_offset: 0,
      ingress_time: 0n,
      cumulative_scaled_rate_offset: 0,
      scaled_last_gm_phase_change: 0,
      gm_time_base_indicator: 0,
      last_gm_phase_change: "0x0000'0000000000000000.0000",
      gm_present: false,
      gm_identity: clockIdentity,
    },
  };
}

/**
 * Timing inputs with no pulses and no NMEA sentences seen: neither HAL has those pins wired. One
 * frozen object, so readers can tell by identity that nothing changed (GET /api/v1/time renders
 * its static parts once per change).
 */
const IDLE_TIMING_INPUTS: TimingInputs = deepFreeze({
  syncPulseIn: { count: 0, count_unfiltered: 0, last_period_nsec: 0, locked: false },
  nmea: {
    locked: false,
    decoding: { date_decoded_count: 0, last_read_message: '', not_valid_count: 0, utc_decoded_count: 0 },
    io_checks: { bit_count: 0, bit_count_unfiltered: 0, char_count: 0, start_char_count: 0 },
  },
});

export function idleTimingInputs(): TimingInputs {
  return IDLE_TIMING_INPUTS;
}

function deepFreeze<T extends object>(value: T): T {
  for (const member of Object.values(value))
    if (typeof member === 'object' && member !== null) deepFreeze(member as object);
  return Object.freeze(value);
}

/** Timestamp offset of a PTP clock that follows the system clock: UTC, plus the TAI−UTC offset when a grandmaster provides PTP time. */
export function ptpOffsetFromSystemClock(realtimeOffsetNs: bigint, dataSets: PtpDataSets | undefined): bigint {
  if (!dataSets?.time_status_np.gm_present) return realtimeOffsetNs;
  return realtimeOffsetNs + BigInt(dataSets.time_properties_data_set.current_utc_offset) * 1_000_000_000n;
}

/** A grandmaster on the network: ptp4l's port turns SLAVE and follows it (values of a lab grandmaster). */
export const INJECTED_GRANDMASTER = 'ac1f6b.fffe.0a0b0c';

export function withGrandmaster(sets: PtpDataSets): PtpDataSets {
  const parentPort = `${INJECTED_GRANDMASTER}-1`;
  return {
    ...sets,
    current_data_set: { steps_removed: 1, offset_from_master: 12, mean_path_delay: 480 },
    parent_data_set: {
      ...sets.parent_data_set,
      parent_port_identity: parentPort,
      grandmaster_identity: INJECTED_GRANDMASTER,
      gm_clock_class: 6,
      gm_clock_accuracy: 0x21,
      gm_offset_scaled_log_variance: 0x4e5d,
      grandmaster_priority1: 128,
      grandmaster_priority2: 128,
    },
    port_data_set: { ...sets.port_data_set, port_state: 'SLAVE' },
    time_properties_data_set: {
      ...sets.time_properties_data_set,
      current_utc_offset_valid: 1,
      ptp_timescale: 1,
      time_traceable: 1,
      frequency_traceable: 1,
      time_source: 0x20,
    },
    time_status_np: { ...sets.time_status_np, master_offset: 12, gm_present: true, gm_identity: INJECTED_GRANDMASTER },
  };
}

/** 1 Hz pulses arriving since the fault began, locked. */
export function withSyncPulses(inputs: TimingInputs, elapsedMs: number): TimingInputs {
  const count = Math.floor(elapsedMs / 1000) + 1;
  return { ...inputs, syncPulseIn: { count, count_unfiltered: count, last_period_nsec: 1_000_000_000, locked: true } };
}
