/**
 * The clocks of a real unit, read with the tools the unit runs:
 * - tracking: `chronyc -n -c tracking` (chrony-tracking.ts). When no chronyd answers, an
 *   unsynchronised report (nothing disciplines the clock that we can see) and a warning in the log.
 * - PTP: the five management data sets from ptp4l through pmc (pmc.ts). The device core reuses a
 *   reading for a second (`readingsTtlMs`), so a fleet of pollers doesn't spawn a pmc per request.
 *   When ptp4l doesn't answer: the local view with port_state DISABLED (no PTP port is running) and a warning.
 * - Every read is bounded (DAEMON_READ_BOUND_MS): a daemon that takes a request and never answers (a hung
 *   ptp4l or chronyd whose socket is never read) reads as one that is not running once the bound runs out,
 *   the tool's child is ended (run-command.ts), and a read past its bound is never handed to later callers.
 *   Closing cancels the reads in flight instead of waiting for them.
 * - Profile: written into ptp4l's configuration file (ptp4l-config.ts), then ptp4l is restarted with
 *   the configured command when the file changed.
 * - Timestamp clocks: internal oscillator = CLOCK_MONOTONIC (since the OS booted, i.e. power-on);
 *   PTP = the system clock, which chrony (or phc2sys) keeps on the PTP clock, plus the TAI−UTC offset
 *   while a grandmaster is present; SYNC_PULSE_IN counts from the last initialization (no pulse input).
 */
import type { Logger } from 'pino';
import { type SensorConfig, TtlCache } from '../../model/index.js';
import { DEFAULT_PTP_PROFILE, transportSpecific, type PtpProfile } from '../ptp-profiles.js';
import type { ChronyTracking, PtpDataSets, SystemClockReading, TimeHal, TimingInputs } from '../time.js';
import {
  idleTimingInputs,
  localPtpDataSets,
  ptpOffsetFromSystemClock,
  RealtimeAnchor,
  systemClockReading,
  unsynchronisedTracking,
} from '../time-models.js';
import { readChronyTracking } from './chrony-tracking.js';
import { queryPtpDataSets } from './pmc.js';
import { writeProfileToPtp4lConfig } from './ptp4l-config.js';
import { runCommand } from './run-command.js';

export interface LinuxTimeOptions {
  /** chronyc `-h`: host or path of chronyd's command socket (default: chronyc's default). */
  chronycHost?: string;
  /** ptp4l's `uds_address` (default /var/run/ptp4l). */
  ptp4lSocket?: string;
  /** pmc's own socket (pmc -i); default pmc's /var/run/pmc.PID, which only root may create. */
  pmcClientSocket?: string;
  /** ptp4l's configuration file, whose managed block holds the profile; without it a profile is only recorded. */
  ptp4lConfig?: string;
  /** Run after the profile changed ptp4l's configuration, e.g. ["systemctl", "restart", "ptp4l"]. */
  ptp4lRestartCommand?: readonly string[];
  /** The PTP clock identity of the unit (from the interface MAC), for the view when ptp4l is not running. */
  clockIdentity: () => Promise<string>;
  log: Logger;
}

/**
 * How long the core reuses what chronyc and pmc said: chrony updates its tracking at most once per poll
 * interval (>= 1 s), so a second loses nothing; ptp4l's data sets are read as often.
 */
export const READINGS_TTL_MS = 1000;

/** The longest a tracking or PTP read takes, both of pmc's transportSpecific tries together. */
export const DAEMON_READ_BOUND_MS = 3000;

export class LinuxTime implements TimeHal {
  private readonly realtime = new RealtimeAnchor();
  private profile: PtpProfile = DEFAULT_PTP_PROFILE;
  private lastInitNs = process.hrtime.bigint();
  /**
   * Concurrent callers share one pmc and one chronyc (a time-to-live of 0: nothing is reused after
   * the read; the device core keeps readings). The newest data sets are the PTP mode's timestamp clock.
   */
  private readonly ptpReads = new TtlCache(() => this.queryPtp(), 0, Date.now, DAEMON_READ_BOUND_MS);
  private readonly trackingReads = new TtlCache(() => this.queryTracking(), 0, Date.now, DAEMON_READ_BOUND_MS);
  /** Aborted by close: the reads in flight end their children and settle at once. */
  private readonly closing = new AbortController();
  private lastPtpReadAt = 0;
  private readingsChanged: () => void = () => undefined;
  private readonly warned = new Set<string>();
  readonly readingsTtlMs = READINGS_TTL_MS;

  constructor(private readonly options: LinuxTimeOptions) {}

  timestampOffsetNs(config: SensorConfig): bigint {
    switch (config.timestamp_mode) {
      case 'TIME_FROM_INTERNAL_OSC':
        return 0n;
      case 'TIME_FROM_PTP_1588':
        // Synchronous for the data plane: use what pmc said last, and ask again for the next caller.
        this.refreshPtpInBackground();
        return ptpOffsetFromSystemClock(this.realtime.offsetNs(), this.ptpReads.peek());
      case 'TIME_FROM_SYNC_PULSE_IN':
        return -this.lastInitNs;
    }
  }

  markInitialization(): void {
    this.lastInitNs = process.hrtime.bigint();
  }

  /** A real unit's power-on is the OS boot, which CLOCK_MONOTONIC already counts from. */
  markPowerOn(): void {}

  systemClock(): SystemClockReading {
    return systemClockReading();
  }

  onReadingsChanged(listener: () => void): void {
    this.readingsChanged = listener;
  }

  tracking(): Promise<ChronyTracking> {
    return this.trackingReads.get();
  }

  private async queryTracking(): Promise<ChronyTracking> {
    try {
      const tracking = await readChronyTracking({
        host: this.options.chronycHost,
        timeoutMs: DAEMON_READ_BOUND_MS,
        signal: this.closing.signal,
      });
      this.warned.delete('chrony');
      return tracking;
    } catch (error) {
      this.warnOnce('chrony', error, 'no tracking report from chronyd; reporting the system clock as not synchronised');
      return unsynchronisedTracking();
    }
  }

  ptpDataSets(): Promise<PtpDataSets> {
    this.lastPtpReadAt = Date.now();
    return this.ptpReads.get();
  }

  /** At most one pmc a second for the timestamp clock, whoever else reads the data sets. */
  private refreshPtpInBackground(): void {
    if (Date.now() - this.lastPtpReadAt < READINGS_TTL_MS) return;
    // A failed read is reported by the next GET that awaits one; here it only must not go unhandled.
    this.ptpDataSets().catch(() => undefined);
  }

  async applyPtpProfile(profile: PtpProfile): Promise<void> {
    const { ptp4lConfig, ptp4lRestartCommand } = this.options;
    // The file first: a profile ptp4l's configuration refused is not the one the unit reports.
    const changed = ptp4lConfig ? await writeProfileToPtp4lConfig(ptp4lConfig, profile) : false;
    this.profile = profile;
    this.ptpReads.invalidate();
    this.readingsChanged();
    if (changed && ptp4lRestartCommand?.length) {
      // ptp4l re-reads its configuration only at start; a failed restart leaves the old profile running until the next one.
      runCommand(ptp4lRestartCommand, { timeoutMs: 15_000, signal: this.closing.signal }).catch((error: unknown) =>
        this.options.log.error({ err: error }, 'restarting ptp4l for the new PTP profile failed'),
      );
    }
  }

  timingInputs(): TimingInputs {
    return idleTimingInputs();
  }

  /** Never waits on a daemon: the reads in flight are cancelled and settle with the not-synchronised view. */
  async close(): Promise<void> {
    this.closing.abort();
  }

  private async queryPtp(): Promise<PtpDataSets> {
    const expected = transportSpecific(this.profile);
    const signal = AbortSignal.any([this.closing.signal, AbortSignal.timeout(DAEMON_READ_BOUND_MS)]);
    const ask = (transport: number) =>
      queryPtpDataSets({
        socketPath: this.options.ptp4lSocket,
        clientSocket: this.options.pmcClientSocket,
        transportSpecific: transport,
        timeoutMs: DAEMON_READ_BOUND_MS,
        signal,
      });
    let dataSets: PtpDataSets;
    try {
      // ptp4l drops management messages of another transportSpecific: it may still run the previous profile.
      dataSets = await ask(expected).catch(() => ask(expected === 0 ? 1 : 0));
      this.warned.delete('ptp4l');
    } catch (error) {
      this.warnOnce('ptp4l', error, 'no answer from ptp4l; reporting the PTP port as DISABLED');
      dataSets = localPtpDataSets(await this.options.clockIdentity(), this.profile, 'DISABLED');
    }
    return dataSets;
  }

  /** One warning per outage, not one per request. */
  private warnOnce(what: string, error: unknown, message: string): void {
    if (this.warned.has(what)) return;
    this.warned.add(what);
    this.options.log.warn({ err: error }, message);
  }
}
