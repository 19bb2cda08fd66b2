/**
 * The lidar stream of one run: packet templates of the configuration, stamped and sent on schedule.
 */
import type { LidarStreamPlan } from './emitter-protocol.js';
import { emptyLidarImage, fillLidarImage } from './lidar-image.js';
import {
  encodeLidarPacket,
  LidarPacketStamper,
  type LidarPacketTemplate,
  type SensorIdentity,
} from './lidar-packet.js';
import { COLUMNS_PER_PACKET, PROFILE_LAYOUTS } from './lidar-profiles.js';
import { PacedStream } from './paced-stream.js';
import type { SceneReturns } from './scene.js';
import type { StreamSchedule } from './schedule.js';
import type { UdpTarget } from './udp-target.js';
import type { PreviewImage } from './preview-frame.js';

export class LidarStream extends PacedStream {
  protected framePeriodNs: number;
  protected readonly slotsPerFrame: number;
  private stamper: LidarPacketStamper;
  private readonly format: Parameters<typeof encodeLidarPacket>[3];
  private readonly modeFramePeriodNs: number;
  /** Frames of the schedules before the current one: frame ids carry on across a change of rate. */
  private frameBase = 0;
  /** Template per packet index; null where the packet lies wholly outside the column window. */
  private readonly byIndex: (LidarPacketTemplate | null)[];
  private readonly wideFrameId: boolean;
  /** First-return range and reflectivity of the frame, for the live view's tap (the rest is dropped). */
  readonly image: PreviewImage;
  readonly columnWindow: readonly [number, number];
  private stampedFrame = -1;
  private frameStartHi = 0;
  private frameStartLo = 0;

  constructor(
    plan: LidarStreamPlan,
    scene: SceneReturns,
    identity: SensorIdentity,
    target: UdpTarget,
    private readonly alertFlags: () => number,
    private readonly thermalHeader: () => number = () => 0,
  ) {
    super(target);
    const layout = PROFILE_LAYOUTS[plan.profile];
    const cpf = plan.columnsPerFrame;
    const format = { layout, columnsPerFrame: cpf, pixelsPerColumn: scene.pixels, columnWindow: plan.columnWindow };
    // As lidar_data_format's pixel_shift_by_row: halves round away from zero.
    const pixelShiftByRow = plan.geometry.beamAzimuthDeg.map(
      (deg) => Math.sign(deg) * Math.round(Math.abs((deg * cpf) / 360)),
    );
    // The frame is encoded one packet of columns at a time through one small image: a reinit then never
    // holds a whole frame's image (4 MB at 2048 columns, 128 channels, two returns) beside the templates.
    // The live view keeps the first return's range and reflectivity of every column.
    const N = scene.pixels;
    const range1 = new Uint32Array(cpf * N);
    const reflectivity1 = new Uint8Array(cpf * N);
    const columns = emptyLidarImage(COLUMNS_PER_PACKET, N);
    this.byIndex = new Array<LidarPacketTemplate | null>(cpf / COLUMNS_PER_PACKET).fill(null);
    for (let index = 0; index < cpf / COLUMNS_PER_PACKET; index++) {
      const first = index * COLUMNS_PER_PACKET;
      fillLidarImage(scene, plan.returns, cpf, first, columns);
      range1.set(columns.range1, first * N);
      reflectivity1.set(columns.reflectivity1, first * N);
      this.byIndex[index] = encodeLidarPacket(columns, 0, index, format, identity);
    }
    this.image = { columns: cpf, pixels: N, range1, reflectivity1, pixelShiftByRow };
    this.columnWindow = plan.columnWindow;
    this.format = format;
    this.modeFramePeriodNs = Math.round(1e9 / plan.frameRateHz);
    this.framePeriodNs = this.modeFramePeriodNs;
    this.slotsPerFrame = cpf / COLUMNS_PER_PACKET;
    this.stamper = new LidarPacketStamper(format, this.framePeriodNs);
    this.wideFrameId = layout.header === 'FUSA';
  }

  /**
   * From now on frames come at `hz` (a fault rule: a rotor running fast or slow), or again at lidar_mode's rate
   * when undefined: a new schedule starts at `start`, with the next frame id, and column timestamps follow the
   * new period. The frame being sent when it changes is cut short, as when a rotor's speed jumps.
   */
  retime(hz: number | undefined, start: { sensorNs: bigint; localMs: number }): void {
    const period = hz === undefined ? this.modeFramePeriodNs : Math.round(1e9 / hz);
    if (period === this.framePeriodNs) return;
    this.frameBase = this.stampedFrame + 1;
    this.framePeriodNs = period;
    this.stamper = new LidarPacketStamper(this.format, period);
    this.begin(start);
  }

  /** One packet: its template stamped with the frame's id, start time and the current alert flags. */
  protected sendSlot(slot: number, s: StreamSchedule): void {
    const tpl = this.byIndex[s.indexOf(slot)];
    if (!tpl) return;
    const frame = this.frameBase + s.frameOf(slot);
    if (frame !== this.stampedFrame) {
      const start = s.frameStartSensorNs(frame - this.frameBase);
      this.frameStartHi = Number(start >> 32n);
      this.frameStartLo = Number(start & 0xffffffffn);
      this.stampedFrame = frame;
    }
    // frame_id: u16 wrapping (STANDARD) or u32 strictly increasing within the init (FUSA).
    const frameId = this.wideFrameId ? frame >>> 0 : frame & 0xffff;
    this.target.send(
      this.stamper.stamp(tpl, frameId, this.alertFlags(), this.frameStartHi, this.frameStartLo, this.thermalHeader()),
    );
  }
}
