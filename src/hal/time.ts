/**
 * Clocks of the unit: the OS clocks and their time daemon (chrony), the PTP daemon's data sets
 * (linuxptp ptp4l), the PTP profile, and the sensor timestamp clock the data plane stamps packets with.
 * sim: a coherent model (src/hal/sim/time-sim.ts). linux: chronyc, pmc and ptp4l's configuration
 * (src/hal/linux/time-linux.ts).
 */
import type { SensorConfig } from '../model/index.js';
import type { PtpProfile } from './ptp-profiles.js';
import type { TimeFaults } from './faults.js';

/**
 * `GET /api/v1/time/system` → tracking: exactly the fields of `chronyc tracking`, in its units
 * (seconds, ppm), with chrony's signs (`system_time_offset` < 0: the system clock is ahead).
 */
export interface ChronyTracking {
  /** Reference ID as 8 hex digits, e.g. "C0000201" (an NTP server's IPv4) or "70747000" (refclock "ptp"). */
  reference_id: string;
  /** "ptp" when the system clock follows the PTP clock, else the selected NTP server's address, "" when none. */
  remote_host: string;
  stratum: number;
  /** UTC time of the last reference measurement processed, seconds since the epoch (0 when none). */
  ref_time_utc: number;
  /** Seconds between the estimated true time and the system clock. */
  system_time_offset: number;
  /** Estimated local offset at the last clock update, seconds. */
  last_offset: number;
  /** Long-term average of the offset, seconds. */
  rms_offset: number;
  /** ppm. */
  frequency: number;
  /** ppm. */
  residual_frequency: number;
  /** ppm. */
  skew: number;
  /** Seconds. */
  root_delay: number;
  /** Seconds. */
  root_dispersion: number;
  /** Seconds. */
  update_interval: number;
  /** chrony's leap status in lower case: "normal", "insert second", "delete second", "not synchronised". */
  leap_status: string;
}

/** linuxptp's CURRENT_DATA_SET, snake_case. */
export interface CurrentDataSet {
  steps_removed: number;
  /** ns. */
  offset_from_master: number;
  /** ns. */
  mean_path_delay: number;
}

export interface ParentDataSet {
  /** "bc0fa7.fffe.c48ea8-1". */
  parent_port_identity: string;
  parent_stats: number;
  observed_parent_offset_scaled_log_variance: number;
  observed_parent_clock_phase_change_rate: number;
  grandmaster_priority1: number;
  gm_clock_class: number;
  gm_clock_accuracy: number;
  gm_offset_scaled_log_variance: number;
  grandmaster_priority2: number;
  /** "bc0fa7.fffe.c48ea8"; the unit's own clock identity when no grandmaster is selected. */
  grandmaster_identity: string;
}

export interface PortDataSet {
  port_identity: string;
  /** LISTENING, UNCALIBRATED, SLAVE, … (linuxptp names); DISABLED when no PTP daemon answers. */
  port_state: string;
  log_min_delay_req_interval: number;
  peer_mean_path_delay: number;
  log_announce_interval: number;
  announce_receipt_timeout: number;
  log_sync_interval: number;
  /** 1 = E2E, 2 = P2P (linuxptp's numbering). */
  delay_mechanism: number;
  log_min_pdelay_req_interval: number;
  version_number: number;
}

export interface TimePropertiesDataSet {
  current_utc_offset: number;
  leap61: number;
  leap59: number;
  current_utc_offset_valid: number;
  ptp_timescale: number;
  time_traceable: number;
  frequency_traceable: number;
  time_source: number;
}

export interface TimeStatusNp {
  master_offset: number;
  /** ns since the epoch; beyond 2^53, hence bigint (serialized as an exact JSON integer). */
  ingress_time: bigint;
  cumulative_scaled_rate_offset: number;
  scaled_last_gm_phase_change: number;
  gm_time_base_indicator: number;
  /** pmc's notation, e.g. "0x0000'0000000000000000.0000". */
  last_gm_phase_change: string;
  gm_present: boolean;
  gm_identity: string;
}

/** The five management data sets of `GET /api/v1/time/ptp` (the profile member comes from the service). */
export interface PtpDataSets {
  current_data_set: CurrentDataSet;
  parent_data_set: ParentDataSet;
  port_data_set: PortDataSet;
  time_properties_data_set: TimePropertiesDataSet;
  time_status_np: TimeStatusNp;
}

/** What the unit's timing inputs (SYNC_PULSE_IN pin, NMEA UART on MULTIPURPOSE_IO) have seen. */
export interface TimingInputs {
  syncPulseIn: { count: number; count_unfiltered: number; last_period_nsec: number; locked: boolean };
  nmea: {
    locked: boolean;
    decoding: {
      date_decoded_count: number;
      last_read_message: string;
      not_valid_count: number;
      utc_decoded_count: number;
    };
    io_checks: { bit_count: number; bit_count_unfiltered: number; char_count: number; start_char_count: number };
  };
}

/** The OS clocks, seconds (`GET /api/v1/time/system`). */
export interface SystemClockReading {
  /** CLOCK_MONOTONIC: since boot, never decreases. */
  monotonic: number;
  /** CLOCK_REALTIME: since the Unix epoch. */
  realtime: number;
}

export interface TimeHal {
  /**
   * Offset such that sensor timestamp ns = process.hrtime.bigint() + offset, for the clock
   * `config.timestamp_mode` selects. The data plane stamps packets with it and GET /api/v1/time/sensor
   * reports `timestamp.time` with it, so both always agree:
   * - TIME_FROM_INTERNAL_OSC: time since power-on (sim: since the simulated unit powered on, reset by
   *   markPowerOn; linux: CLOCK_MONOTONIC, i.e. since the OS booted).
   * - TIME_FROM_PTP_1588: the PTP clock. With a grandmaster: UTC + current_utc_offset (TAI). Without
   *   one it free-runs: sim from the UTC time of its power-on; linux from the system clock (UTC).
   * - TIME_FROM_SYNC_PULSE_IN: counts from 0 at the last initialization (markInitialization) while no
   *   pulses lock it; neither HAL has a pulse input, so it never locks.
   * The value may change between calls when a clock is re-synchronized (PTP lock, markInitialization),
   * so the data plane takes it once per initialization (StreamRun.timestampOffsetNs).
   * Note to the data plane: the signature is unchanged; the device core now calls markInitialization()
   * at the start of every bringUp, before streamRun(), and markPowerOn() when a (simulated) restart begins.
   */
  timestampOffsetNs(config: SensorConfig): bigint;
  /** The device core starts an initialization (before it builds the data plane's run): SYNC_PULSE_IN restarts at 0. */
  markInitialization(): void;
  /** The unit powers on again (the simulated in-process reboot): the internal oscillator restarts at 0. */
  markPowerOn(): void;
  systemClock(): SystemClockReading;
  /** chrony's tracking report, read now; an unsynchronised report when no time daemon answers. */
  tracking(): Promise<ChronyTracking>;
  /** The PTP daemon's data sets, read now (linux: a pmc query). */
  ptpDataSets(): Promise<PtpDataSets>;
  /**
   * How long a reading of `tracking` and `ptpDataSets` stays current, ms: the device core reuses a
   * reading that long (linux: a second, so pollers cost one daemon query per second). Infinity: a
   * reading changes only when `onReadingsChanged` says so (sim).
   */
  readonly readingsTtlMs: number;
  /** Registers the listener told when a reading changed before its time ran out (a profile, a fault). */
  onReadingsChanged(listener: () => void): void;
  /** Use this PTP profile from now on (linux: rewrites ptp4l's configuration). No reinit. */
  applyPtpProfile(profile: PtpProfile): Promise<void>;
  timingInputs(): TimingInputs;
  /** The grandmaster and pulses a fault brings (sim); absent on a real unit's daemons and pins. */
  readonly faults?: TimeFaults;
  close(): Promise<void>;
}
