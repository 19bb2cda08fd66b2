/**
 * The absolute timetable of a periodic stream: slot k of a run is due at a fixed instant computed from
 * the run's start, never from the previous send, so late ticks do not accumulate into drift.
 *
 * Frames sit on the sensor clock's grid (frame starts are multiples of the frame period, as with phase
 * lock), and a slot is due when its last column has been measured: slot j of a frame is due at
 * `frame start + (j + 1) · slot period`. A run starts with the slot being measured at the time of the
 * start, so the first packets may belong to a partial frame, as on a unit whose data was just enabled.
 */

const floorDiv = (a: bigint, b: bigint) => {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
};

export class StreamSchedule {
  readonly slotPeriodNs: number;
  /** Frame index (on the sensor clock's grid) of the run's first slot. */
  private readonly firstFrame: bigint;
  private readonly framePeriod: bigint;
  /** Sensor time of the start, minus the start of `firstFrame`. */
  private readonly phaseNs: number;
  /** Position within `firstFrame` of slot 0. */
  private readonly firstIndex: number;

  /**
   * @param framePeriodNs integer frame period (the IMU uses its sample period with one slot per frame)
   * @param slotsPerFrame packets per frame
   * @param startSensorNs sensor clock at the start
   * @param startLocalMs `performance.now()` at the same instant
   */
  constructor(
    readonly framePeriodNs: number,
    readonly slotsPerFrame: number,
    startSensorNs: bigint,
    private readonly startLocalMs: number,
  ) {
    this.framePeriod = BigInt(framePeriodNs);
    this.slotPeriodNs = framePeriodNs / slotsPerFrame;
    this.firstFrame = floorDiv(startSensorNs, this.framePeriod);
    this.phaseNs = Number(startSensorNs - this.firstFrame * this.framePeriod);
    this.firstIndex = Math.floor(this.phaseNs / this.slotPeriodNs);
  }

  /** Frames since the run's first (partial) frame, for slot `k`. */
  frameOf(k: number): number {
    return Math.floor((this.firstIndex + k) / this.slotsPerFrame);
  }

  /** Position of slot `k` in its frame (the packet index). */
  indexOf(k: number): number {
    return (this.firstIndex + k) % this.slotsPerFrame;
  }

  /** `performance.now()` at which slot `k` is due. */
  dueLocalMs(k: number): number {
    return this.startLocalMs + ((this.firstIndex + k + 1) * this.slotPeriodNs - this.phaseNs) / 1e6;
  }

  /** Sensor time at which frame `frame` (counted as in frameOf) starts. */
  frameStartSensorNs(frame: number): bigint {
    return (this.firstFrame + BigInt(frame)) * this.framePeriod;
  }

  /** The last slot due at `nowMs` (-1 before slot 0 is due). */
  lastDueSlot(nowMs: number): number {
    const sinceGridNs = (nowMs - this.startLocalMs) * 1e6 + this.phaseNs;
    let k = Math.floor(sinceGridNs / this.slotPeriodNs) - 1 - this.firstIndex;
    // Guard against floating-point disagreement with dueLocalMs at the boundary.
    while (k >= 0 && this.dueLocalMs(k) > nowMs) k--;
    while (this.dueLocalMs(k + 1) <= nowMs) k++;
    return Math.max(k, -1);
  }
}
