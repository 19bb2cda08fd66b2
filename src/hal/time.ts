/**
 * Clocks of the unit: the OS clocks and their time daemon (chrony), the PTP daemon's data sets
 * (linuxptp ptp4l), the PTP profile, and the sensor timestamp clock the data plane stamps packets with.
 * sim: a coherent model (src/hal/sim/time-sim.ts). linux: chronyc, pmc and ptp4l's configuration
 * (src/hal/linux/time-linux.ts).
 */
import type { SensorConfig } from '../model/index.js';
import type { PtpProfile } from './ptp-profiles.js';
import type { TimeFaults } from './faults.js';
import type { Static } from '@sinclair/typebox';
import type {
  ChronyTracking,
  DeepReadonly,
  NmeaDecodingSchema,
  NmeaIoChecksSchema,
  PtpDataSets,
} from './time-documents.js';

// The readings' shapes are stated once, as schemas (time-documents.ts); their types derive from them.
export type { ChronyTracking, PtpDataSets } from './time-documents.js';

/**
 * What the unit's timing inputs (SYNC_PULSE_IN pin, NMEA UART on MULTIPURPOSE_IO) have seen. The same
 * object while nothing changes (GET /api/v1/time renders its static parts once per object), so read-only.
 */
export type TimingInputs = DeepReadonly<{
  syncPulseIn: { count: number; count_unfiltered: number; last_period_nsec: number; locked: boolean };
  nmea: {
    locked: boolean;
    decoding: Static<typeof NmeaDecodingSchema>;
    io_checks: Static<typeof NmeaIoChecksSchema>;
  };
}>;

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
   * so the data plane takes it once per initialization (StreamPlan.timestampOffsetNs).
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
