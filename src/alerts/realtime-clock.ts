/**
 * The system realtime clock in nanoseconds: alert timestamps (spec rule 6) and the `realtime` of
 * GET /api/v1/time/system both read it, so the two always agree.
 *
 * Date.now() is the OS realtime clock but only to the millisecond, and adding sub-millisecond
 * digits from another clock would make successive readings jump back within a millisecond. So the
 * reading is the monotonic clock plus an offset to realtime. The offset starts at the low end of
 * what Date.now() allows and is only ever raised to the smallest value that keeps the reading inside
 * the OS clock's current millisecond: readings never go backwards and never differ from the OS
 * clock by a millisecond or more. When the OS clock is stepped back (an NTP step), the reading
 * follows it.
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
  if (reading < millisecondStart || reading >= millisecondStart + NS_PER_MS) {
    realtimeMinusMonotonicNs = millisecondStart - monotonic;
    return millisecondStart;
  }
  return reading;
}
