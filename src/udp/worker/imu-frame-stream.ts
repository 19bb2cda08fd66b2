/**
 * The IMU stream of ACCEL32_GYRO32_NMEA (firmware 3.2): `imu_packets_per_frame` packets per lidar frame, on the
 * lidar frames' grid and with their frame ids, each with `imu_measurements_per_packet` samples taken at evenly
 * spaced columns of the frame (the sample's measurement id and that column's time), and the last sentence of the
 * simulated GNSS receiver on the NMEA input, once a second (none without one, as a real unit with nothing on
 * its NMEA input sends a zero block).
 */
import { encodeImuNmeaPacket, imuNmeaTemplate, type NmeaInput } from '../packets/imu-nmea-packet.js';
import type { SensorIdentity } from '../packets/packet-header.js';
import { GNSS_PERIOD_S, rmcSentence } from '../scene/gnss.js';
import { ImuAtRest } from '../scene/imu-motion.js';
import type { ImuStreamPart } from '../contract/stream-plan.js';
import { PacedStream } from './paced-stream.js';
import type { StreamSchedule } from './schedule.js';
import type { UdpTarget } from './udp-target.js';

type Vec3 = [number, number, number];

export class ImuFrameStream extends PacedStream {
  protected readonly framePeriodNs: number;
  protected readonly slotsPerFrame: number;
  private readonly motion = new ImuAtRest();
  private readonly format;
  /** A few buffers in rotation: a queued send still owns its buffer while the next packet is encoded. */
  private readonly buffers: Buffer[];
  private turn = 0;
  /** One packet's samples, filled in place for every packet (the motion model reuses its own arrays). */
  private readonly measurements: { timestampNs: bigint; measurementId: number; accelG: Vec3; gyroDps: Vec3 }[];
  /** Columns between two samples. */
  private readonly stride: number;
  /** Columns from a frame's first column to its first sample (the last column of the stride holding it). */
  private readonly firstSampleLag: number;
  /** Sensor time of the GNSS receiver's next sentence (null: no receiver, or not yet started). */
  private nextSentenceNs: bigint | null = null;
  private gnssStartNs = 0n;

  constructor(
    private readonly plan: ImuStreamPart & { frames: NonNullable<ImuStreamPart['frames']> },
    identity: SensorIdentity,
    target: UdpTarget,
    private readonly alertFlags: () => number,
  ) {
    super(target);
    const { frames } = plan;
    this.framePeriodNs = Math.round(1e9 / frames.frameRateHz);
    this.slotsPerFrame = frames.packetsPerFrame;
    this.stride = frames.columnsPerFrame / (frames.packetsPerFrame * frames.measurementsPerPacket);
    this.firstSampleLag = this.stride - 1 - (frames.firstColumn % this.stride);
    this.format = {
      header: frames.header,
      measurements: frames.measurementsPerPacket,
      accelFsr: plan.accelFsr,
      gyroFsr: plan.gyroFsr,
    };
    this.buffers = Array.from({ length: 4 }, () => imuNmeaTemplate(this.format, identity));
    this.measurements = Array.from({ length: frames.measurementsPerPacket }, () => ({
      timestampNs: 0n,
      measurementId: 0,
      accelG: [0, 0, 1] as Vec3,
      gyroDps: [0, 0, 0] as Vec3,
    }));
  }

  protected sendSlot(slot: number, s: StreamSchedule): void {
    const { columnsPerFrame: cpf, header, measurementsPerPacket: count, firstColumn } = this.plan.frames;
    const frame = s.frameOf(slot);
    const start = s.frameStartSensorNs(frame);
    const first = s.indexOf(slot) * count;
    for (let k = 0; k < count; k++) {
      // Samples stay on their columns, the last of each stride as on a real unit (ids 31, 63, … at 2048); a frame
      // holds those measured while its lidar frame was, from its first column on, each at that column's time.
      const position = (first + k) * this.stride + this.firstSampleLag;
      const m = (firstColumn + position) % cpf;
      const { accelG, gyroDps } = this.motion.next();
      const sample = this.measurements[k];
      sample.timestampNs = start + BigInt(Math.floor((position * this.framePeriodNs) / cpf));
      sample.measurementId = m;
      for (let axis = 0; axis < 3; axis++) {
        sample.accelG[axis] = accelG[axis];
        sample.gyroDps[axis] = gyroDps[axis];
      }
    }
    const frameId = header === 'FUSA' ? frame >>> 0 : frame & 0xffff;
    const buf = this.buffers[(this.turn = (this.turn + 1) % this.buffers.length)];
    const nmea = this.sentenceBy(this.measurements[count - 1].timestampNs);
    this.target.send(encodeImuNmeaPacket(buf, this.format, frameId, this.alertFlags(), this.measurements, nmea));
  }

  /** The GNSS receiver's sentence if one arrived by `nowNs` since the last packet. */
  private sentenceBy(nowNs: bigint): NmeaInput | null {
    const gnss = this.plan.frames.gnss;
    if (!gnss) return null;
    if (this.nextSentenceNs === null) {
      this.gnssStartNs = nowNs;
      this.nextSentenceNs = nowNs;
    }
    if (nowNs < this.nextSentenceNs) return null;
    const receivedNs = this.nextSentenceNs;
    this.nextSentenceNs += BigInt(GNSS_PERIOD_S * 1e9);
    const elapsedS = Number(receivedNs - this.gnssStartNs) / 1e9;
    return { sentence: rmcSentence(gnss, Date.now(), elapsedS), receivedNs };
  }
}
