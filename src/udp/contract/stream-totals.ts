/**
 * Packet counters of the data streams since the emitter started, across initializations: the per-run
 * counters (`EmitterStats`) start again at every reinit, monitoring wants counters that only grow.
 * Pure data; the emitter worker folds each run's counters in when the run ends.
 */

export interface StreamStats {
  /** Datagrams handed to the kernel. */
  sent: number;
  /** Slots dropped because the emitter fell more than the catch-up bound behind. */
  skipped: number;
  /** Sends that failed or found no open socket. */
  failed: number;
  bytes: number;
}

export interface EmitterStats {
  initId: number | null;
  lidar: StreamStats | null;
  imu: StreamStats | null;
}

export type StreamName = 'lidar' | 'imu';
export type StreamTotals = Record<StreamName, StreamStats>;

const zero = (): StreamStats => ({ sent: 0, skipped: 0, failed: 0, bytes: 0 });

export const emptyTotals = (): StreamTotals => ({ lidar: zero(), imu: zero() });

function add(a: StreamStats, b: StreamStats | null): StreamStats {
  if (!b) return { ...a };
  return {
    sent: a.sent + b.sent,
    skipped: a.skipped + b.skipped,
    failed: a.failed + b.failed,
    bytes: a.bytes + b.bytes,
  };
}

/** `finished` (runs that ended) plus the running run's counters so far. */
export function addRun(finished: StreamTotals, run: EmitterStats | null): StreamTotals {
  return { lidar: add(finished.lidar, run?.lidar ?? null), imu: add(finished.imu, run?.imu ?? null) };
}
