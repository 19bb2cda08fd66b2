/**
 * The IMU stream of one run: 100 samples per second on the sensor clock's 10 ms grid.
 */
import type { ImuStreamPart } from '../contract/stream-plan.js';
import { ImuAtRest } from '../scene/imu-motion.js';
import { encodeImuPacket, IMU_PACKET_BYTES } from '../packets/imu-packet.js';
import { PacedStream } from './paced-stream.js';
import type { StreamSchedule } from './schedule.js';
import type { UdpTarget } from './udp-target.js';

export const IMU_RATE_HZ = 100;
const IMU_PERIOD_NS = 1e9 / IMU_RATE_HZ;
/** The accelerometer and gyro are latched this long before the packet is assembled. */
const SAMPLE_LATENCY_NS = 250_000n;

export class ImuStream extends PacedStream {
  protected readonly framePeriodNs = IMU_PERIOD_NS;
  protected readonly slotsPerFrame = 1;
  private readonly motion = new ImuAtRest();
  /** A few buffers in rotation: a queued send still owns its buffer while the next sample is encoded. */
  private readonly buffers = Array.from({ length: 4 }, () => Buffer.alloc(IMU_PACKET_BYTES));
  private turn = 0;

  constructor(
    private readonly plan: ImuStreamPart,
    target: UdpTarget,
  ) {
    super(target);
  }

  protected sendSlot(slot: number, schedule: StreamSchedule): void {
    // Slot k is due at the end of its period: that instant is the packet's system timestamp.
    const sysTs = schedule.frameStartSensorNs(schedule.frameOf(slot) + 1);
    const sampleTs = sysTs - SAMPLE_LATENCY_NS;
    const { accelG, gyroDps } = this.motion.next();
    const buf = this.buffers[(this.turn = (this.turn + 1) % this.buffers.length)];
    encodeImuPacket(
      buf,
      { sysTs, accelTs: sampleTs, gyroTs: sampleTs, accelG, gyroDps },
      this.plan.accelFsr,
      this.plan.gyroFsr,
    );
    this.target.send(buf);
  }
}
