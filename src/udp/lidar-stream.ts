/**
 * The lidar stream of one run: packet templates of the configuration, stamped and sent on schedule.
 */
import type { LidarStreamPlan } from './emitter-protocol.js';
import { buildLidarImage } from './lidar-image.js';
import { encodeLidarFrame, LidarPacketStamper, type LidarPacketTemplate, type SensorIdentity } from './lidar-packet.js';
import { COLUMNS_PER_PACKET, PROFILE_LAYOUTS } from './lidar-profiles.js';
import { PacedStream } from './paced-stream.js';
import type { SceneReturns } from './scene.js';
import type { StreamSchedule } from './schedule.js';
import type { UdpTarget } from './udp-target.js';
import type { PreviewImage } from './preview-frame.js';

export class LidarStream extends PacedStream {
  protected readonly framePeriodNs: number;
  protected readonly slotsPerFrame: number;
  private readonly stamper: LidarPacketStamper;
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
  ) {
    super(target);
    const layout = PROFILE_LAYOUTS[plan.profile];
    const cpf = plan.columnsPerFrame;
    const format = { layout, columnsPerFrame: cpf, pixelsPerColumn: scene.pixels, columnWindow: plan.columnWindow };
    const image = buildLidarImage(scene, plan.returns, cpf);
    // As lidar_data_format's pixel_shift_by_row: halves round away from zero.
    const pixelShiftByRow = plan.geometry.beamAzimuthDeg.map(
      (deg) => Math.sign(deg) * Math.round(Math.abs((deg * cpf) / 360)),
    );
    this.image = {
      columns: image.columns,
      pixels: image.pixels,
      range1: image.range1,
      reflectivity1: image.reflectivity1,
      pixelShiftByRow,
    };
    this.columnWindow = plan.columnWindow;
    const templates = encodeLidarFrame(image, format, identity);
    this.byIndex = new Array<LidarPacketTemplate | null>(cpf / COLUMNS_PER_PACKET).fill(null);
    for (const t of templates) this.byIndex[t.index] = t;
    this.framePeriodNs = Math.round(1e9 / plan.frameRateHz);
    this.slotsPerFrame = cpf / COLUMNS_PER_PACKET;
    this.stamper = new LidarPacketStamper(format, this.framePeriodNs);
    this.wideFrameId = layout.header === 'FUSA';
  }

  /** One packet: its template stamped with the frame's id, start time and the current alert flags. */
  protected sendSlot(slot: number, s: StreamSchedule): void {
    const tpl = this.byIndex[s.indexOf(slot)];
    if (!tpl) return;
    const frame = s.frameOf(slot);
    if (frame !== this.stampedFrame) {
      const start = s.frameStartSensorNs(frame);
      this.frameStartHi = Number(start >> 32n);
      this.frameStartLo = Number(start & 0xffffffffn);
      this.stampedFrame = frame;
    }
    // frame_id: u16 wrapping (STANDARD) or u32 strictly increasing within the init (FUSA).
    const frameId = this.wideFrameId ? frame >>> 0 : frame & 0xffff;
    this.target.send(this.stamper.stamp(tpl, frameId, this.alertFlags(), this.frameStartHi, this.frameStartLo));
  }
}
