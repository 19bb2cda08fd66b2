/**
 * chrony's tracking report, read with `chronyc -n -c tracking` (CSV, no DNS lookups). The fields,
 * in order: reference ID (hex), name or address of the reference, stratum, reference time (seconds
 * since the epoch), system time offset, last offset, RMS offset (seconds), frequency, residual
 * frequency, skew (ppm), root delay, root dispersion, update interval (seconds), leap status.
 *
 * remote_host: for a reference clock chronyc prints its refid as the name. A refclock whose refid is
 * "PTP"/"ptp" (e.g. `refclock PHC /dev/ptp0 refid ptp` or `refclock SHM 0 refid PTP`) is the PTP
 * clock, reported as "ptp" as the spec says; an NTP server is reported by its address.
 */
import type { ChronyTracking } from '../time.js';
import { runCommand } from './run-command.js';

export class TrackingParseError extends Error {}

const FIELD_COUNT = 14;

function number(text: string, field: string): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value))
    throw new TrackingParseError(`chronyc tracking: ${field} is not a number: ${JSON.stringify(text)}`);
  return value;
}

/** The refid as text: four bytes of printable ASCII, NULs at the end dropped. */
function refidText(hex: string): string {
  const bytes = Buffer.from(hex.padStart(8, '0'), 'hex');
  const end = bytes.indexOf(0) < 0 ? 4 : bytes.indexOf(0);
  const text = bytes.subarray(0, end).toString('latin1');
  return /^[\x21-\x7e]*$/.test(text) ? text : '';
}

export function remoteHostFor(referenceId: string, name: string): string {
  if (name === '') return '';
  const isRefclock = name === refidText(referenceId);
  if (isRefclock && /^ptp/i.test(name)) return 'ptp';
  return name;
}

/** Parses the one CSV line of `chronyc -c tracking`. */
export function parseChronyTracking(output: string): ChronyTracking {
  const line = output.trim().split('\n')[0] ?? '';
  const f = line.split(',');
  if (f.length !== FIELD_COUNT)
    throw new TrackingParseError(
      `chronyc tracking: expected ${FIELD_COUNT} comma-separated fields, got ${f.length}: ${JSON.stringify(line)}`,
    );
  if (!/^[0-9A-Fa-f]{8}$/.test(f[0]))
    throw new TrackingParseError(`chronyc tracking: reference ID is not 8 hex digits: ${JSON.stringify(f[0])}`);
  return {
    reference_id: f[0].toUpperCase(),
    remote_host: remoteHostFor(f[0], f[1]),
    stratum: number(f[2], 'stratum'),
    ref_time_utc: number(f[3], 'reference time'),
    system_time_offset: number(f[4], 'system time'),
    last_offset: number(f[5], 'last offset'),
    rms_offset: number(f[6], 'RMS offset'),
    frequency: number(f[7], 'frequency'),
    residual_frequency: number(f[8], 'residual frequency'),
    skew: number(f[9], 'skew'),
    root_delay: number(f[10], 'root delay'),
    root_dispersion: number(f[11], 'root dispersion'),
    update_interval: number(f[12], 'update interval'),
    leap_status: f[13].trim().toLowerCase(),
  };
}

export interface ChronycOptions {
  /** chronyc's `-h`: a host or the path of chronyd's Unix command socket; default chronyc's own default. */
  host?: string;
  timeoutMs?: number;
  /** Cancels the read (the unit is stopping, or the caller's own bound ran out). */
  signal?: AbortSignal;
}

export async function readChronyTracking(options: ChronycOptions = {}): Promise<ChronyTracking> {
  const command = ['chronyc', '-n', '-c', ...(options.host ? ['-h', options.host] : []), 'tracking'];
  return parseChronyTracking(
    await runCommand(command, { timeoutMs: options.timeoutMs ?? 3000, signal: options.signal }),
  );
}
