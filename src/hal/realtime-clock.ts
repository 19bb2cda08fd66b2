/**
 * The system realtime clock in nanoseconds: alert timestamps (spec rule 6) and the `realtime` of
 * GET /api/v1/time/system both read it, so the two always agree.
 *
 * Date.now() is the OS realtime clock but only to the millisecond, and adding sub-millisecond
 * digits from another clock would make successive readings jump back within a millisecond. So the
 * reading is the monotonic clock plus an offset to realtime, adjusted by the least amount that keeps
 * the reading inside the OS clock's current millisecond: raised when the OS clock is ahead, lowered
 * to the millisecond's last nanosecond when it is behind. Readings never go backwards and never
 * differ from the OS clock by a millisecond or more. When the OS clock is stepped back (an NTP
 * step), the reading follows it.
 *
 * The offset is module state on purpose: it describes the one OS clock of the process, and every
 * reader must share it for readings to be comparable.
 */
const NS_PER_MS = 1_000_000n;

let realtimeMinusMonotonicNs: bigint | undefined;

export function systemRealtimeNs(): bigint {
  const monotonic = process.hrtime.bigint();
  const millisecondStart = BigInt(Date.now()) * NS_PER_MS;
  if (realtimeMinusMonotonicNs === undefined) realtimeMinusMonotonicNs = millisecondStart - monotonic;
  const reading = monotonic + realtimeMinusMonotonicNs;
  if (reading < millisecondStart) {
    // The OS clock is ahead (it stepped or slewed forward): catch up to its millisecond.
    realtimeMinusMonotonicNs = millisecondStart - monotonic;
    return millisecondStart;
  }
  const millisecondEnd = millisecondStart + NS_PER_MS - 1n;
  if (reading > millisecondEnd) {
    // The monotonic clock ran ahead of the OS clock (slewed slower, or read just before its tick):
    // hold at the end of the OS clock's millisecond. Going back to its start would make the reading
    // fall below one already handed out in the same millisecond.
    realtimeMinusMonotonicNs = millisecondEnd - monotonic;
    return millisecondEnd;
  }
  return reading;
}
