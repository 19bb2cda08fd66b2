/** Index of the first packet a replay starting at `startOffsetNs` (recorded time) sends; times.length if none. */
export function firstReplayed(times: readonly number[], startOffsetNs: number): number {
  const first = times.findIndex((t) => t >= startOffsetNs);
  return first < 0 ? times.length : first;
}

/**
 * When each packet of a replay is due: the recorded capture times, from the start offset on, scaled by
 * the rate, on an absolute timetable (send k is due at start + its offset, never relative to the
 * previous send, so late wake-ups do not accumulate). With looping, pass p follows pass p-1 after one
 * pass duration. Pure.
 */
export class ReplaySchedule {
  /** Index (into the recording's packets) of the first packet replayed. */
  readonly first: number;
  /** Packets per pass. */
  readonly perPass: number;
  /** Recorded time of the first replayed packet, ns. */
  private readonly baseNs: number;
  /** Duration of one pass in recorded time, ns. */
  readonly passNs: number;

  /**
   * @param timesNs recorded capture times of the packets, ascending, from 0
   * @param fullPassNs one pass of the whole recording (its span plus one packet interval)
   * @param startOffsetNs recorded time the replay starts at
   * @param anchor what the timetable counts from: the first replayed packet (it is sent at once), or the
   *   start offset itself (units replaying other sensors of one capture then keep their recorded offsets)
   * @param exactPassNs a pass of exactly this long instead (whole frames: the sensor's frame rate), ns
   */
  constructor(
    private readonly times: readonly number[],
    fullPassNs: number,
    readonly rate: number,
    startOffsetNs: number,
    readonly loop: boolean,
    anchor: 'first-packet' | 'start-offset' = 'first-packet',
    exactPassNs?: number,
  ) {
    const first = firstReplayed(times, startOffsetNs);
    this.first = first;
    this.perPass = times.length - first;
    this.baseNs = anchor === 'start-offset' ? startOffsetNs : first < times.length ? times[first] : 0;
    this.passNs = exactPassNs ?? Math.max(1, fullPassNs - this.baseNs);
  }

  /** Total sends (Infinity when looping). */
  get length(): number {
    return this.perPass === 0 ? 0 : this.loop ? Infinity : this.perPass;
  }

  passOf(k: number): number {
    return Math.floor(k / this.perPass);
  }

  /** Index into the recording's packets of send k. */
  packetOf(k: number): number {
    return this.first + (k % this.perPass);
  }

  /** Recorded time of send k relative to the first replayed packet, passes included, ns. */
  recordedOffsetNs(k: number): number {
    return this.passOf(k) * this.passNs + this.times[this.packetOf(k)] - this.baseNs;
  }

  /** Wall time of send k after the replay's start, ns: the recorded offset divided by the rate. */
  dueNs(k: number): number {
    return this.recordedOffsetNs(k) / this.rate;
  }
}
