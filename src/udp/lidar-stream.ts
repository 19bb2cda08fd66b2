/**
 * The lidar stream of one run: packet templates of the configuration, stamped and sent on schedule.
 */
import type { LidarStreamPlan } from './emitter-protocol.js';
import { buildLidarImage } from './lidar-image.js';
import { encodeLidarFrame, LidarPacketStamper, type LidarPacketTemplate, type SensorIdentity } from './lidar-packet.js';
import { COLUMNS_PER_PACKET, PROFILE_LAYOUTS } from './lidar-profiles.js';
import { SlotCursor, type PacedStream } from './paced-stream.js';
import type { SceneReturns } from './scene.js';
import { StreamSchedule } from './schedule.js';
import type { UdpTarget } from './udp-target.js';

export class LidarStream implements PacedStream {
  private cursor!: SlotCursor;
  private readonly framePeriodNs: number;
  private readonly packetsPerFrame: number;
  private readonly stamper: LidarPacketStamper;
  /** Template per packet index; null where the packet lies wholly outside the column window. */
  private readonly byIndex: (LidarPacketTemplate | null)[];
  private readonly wideFrameId: boolean;
  private stampedFrame = -1;
  private frameStartHi = 0;
  private frameStartLo = 0;

  constructor(
    plan: LidarStreamPlan,
    scene: SceneReturns,
    identity: SensorIdentity,
    private readonly target: UdpTarget,
    private readonly alertFlags: () => number,
  ) {
    const layout = PROFILE_LAYOUTS[plan.profile];
    const cpf = plan.columnsPerFrame;
    const format = { layout, columnsPerFrame: cpf, pixelsPerColumn: scene.pixels, columnWindow: plan.columnWindow };
    const templates = encodeLidarFrame(buildLidarImage(scene, plan.returns, cpf), format, identity);
    this.byIndex = new Array<LidarPacketTemplate | null>(cpf / COLUMNS_PER_PACKET).fill(null);
    for (const t of templates) this.byIndex[t.index] = t;
    this.framePeriodNs = Math.round(1e9 / plan.frameRateHz);
    this.packetsPerFrame = cpf / COLUMNS_PER_PACKET;
    this.stamper = new LidarPacketStamper(format, this.framePeriodNs);
    this.wideFrameId = layout.header === 'FUSA';
  }

  /** Starts the schedule: the constructor did the heavy work, so the first slot is not already late. */
  begin(start: { sensorNs: bigint; localMs: number }): void {
    this.cursor = new SlotCursor(new StreamSchedule(this.framePeriodNs, this.packetsPerFrame, start.sensorNs, start.localMs));
  }

  nextDueMs(): number {
    return this.cursor.nextDueMs();
  }

  sendDue(nowMs: number): void {
    const c = this.cursor;
    const last = c.lastDue(nowMs);
    this.target.stats.skipped = c.skipped;
    const s = c.schedule;
    for (; c.next <= last; c.next++) {
      const tpl = this.byIndex[s.indexOf(c.next)];
      if (!tpl) continue;
      const frame = s.frameOf(c.next);
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
}
