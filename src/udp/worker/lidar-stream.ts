/**
 * The lidar stream of one run: packet templates of the configuration, stamped and sent on schedule.
 */
import type { HeaderType, LidarProfile } from '../../model/index.js';
import type { LidarStreamPart } from '../contract/stream-plan.js';
import { emptyLidarImage, fillLidarImage } from '../scene/lidar-image.js';
import {
  encodeLidarPacket,
  LidarPacketStamper,
  type LidarPacketTemplate,
  type SensorIdentity,
} from '../packets/lidar-packet.js';
import { COLUMNS_PER_PACKET, layoutWithHeader } from '../packets/lidar-profiles.js';
import { PacedStream } from './paced-stream.js';
import type { SceneReturns } from '../scene/scene-returns.js';
import type { StreamSchedule } from './schedule.js';
import type { UdpTarget } from './udp-target.js';
import type { PreviewImage } from './preview-frame.js';
import type { LidarImage } from '../scene/lidar-image.js';
import type { ZoneMonitorPlan } from '../contract/zone-plan.js';
import { NO_ZONES, ZoneWatch } from './zone-watch.js';
import { encodeZonePacket, ZONE_PACKET_BYTES, type ZoneState } from '../packets/zone-packet.js';
import type { BoxObjectPlan, SceneObjectPlan, WindowSoilPlan } from '../contract/scene-plan.js';
import { boxesAt, type LidarBox, overlayBoxes, packetsSeeing } from '../scene/scene-objects.js';
import { overlaySoil, packetsSoiled } from '../scene/window-soil.js';

export class LidarStream extends PacedStream {
  protected framePeriodNs: number;
  private readonly plan: LidarStreamPart;
  private readonly scene: SceneReturns;
  private readonly identity: SensorIdentity;
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
  /** One packet's columns, for encoding a packet again (objects in the scene, zone bits). */
  private readonly scratch: LidarImage;
  /** Zone packets go every frame while they have a target: with empty slots when no zone is live or no set is active. */
  private zoneWatch: ZoneWatch;
  /** The states the last zone packet carried (the live view shows them); null until one is sent. */
  zoneStates: readonly ZoneState[] | null = null;
  private readonly zonePacket = Buffer.alloc(ZONE_PACKET_BYTES);
  private objects: readonly BoxObjectPlan[] = [];
  /** Dirt on the window (fault injection), the packets behind it, and whether it changed since the last frame. */
  private soils: readonly WindowSoilPlan[] = [];
  private soiled = new Set<number>();
  private soilChanged = false;
  /** Packets encoded with objects in them at the last frame start: encoded again once the objects have gone. */
  private withObjects = new Set<number>();

  /**
   * @param plan the stream plan's lidar part
   * @param frame the plan's profile (a current one: LEGACY is replay's) and column window
   */
  constructor(
    plan: LidarStreamPart,
    frame: { profile: LidarProfile; columnWindow: [number, number]; header: HeaderType },
    scene: SceneReturns,
    identity: SensorIdentity,
    target: UdpTarget,
    private readonly alertFlags: () => number,
    private readonly thermalHeader: () => number = () => 0,
    /** Where zone packets go (udp_dest_zm:udp_port_zm); null: none are sent. */
    private readonly zoneTarget: UdpTarget | null = null,
  ) {
    super(target);
    this.plan = plan;
    this.scene = scene;
    this.identity = identity;
    const layout = layoutWithHeader(frame.profile, frame.header);
    const cpf = plan.columnsPerFrame;
    const format = { layout, columnsPerFrame: cpf, pixelsPerColumn: scene.pixels, columnWindow: frame.columnWindow };
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
    this.scratch = columns;
    this.byIndex = new Array<LidarPacketTemplate | null>(cpf / COLUMNS_PER_PACKET).fill(null);
    for (let index = 0; index < cpf / COLUMNS_PER_PACKET; index++) {
      const first = index * COLUMNS_PER_PACKET;
      fillLidarImage(scene, plan.returns, cpf, first, columns);
      range1.set(columns.range1, first * N);
      reflectivity1.set(columns.reflectivity1, first * N);
      this.byIndex[index] = encodeLidarPacket(columns, 0, index, format, identity);
    }
    this.image = { columns: cpf, pixels: N, range1, reflectivity1, pixelShiftByRow };
    this.columnWindow = frame.columnWindow;
    this.format = format;
    this.modeFramePeriodNs = Math.round(1e9 / plan.frameRateHz);
    this.framePeriodNs = this.modeFramePeriodNs;
    this.slotsPerFrame = cpf / COLUMNS_PER_PACKET;
    this.stamper = new LidarPacketStamper(format, this.framePeriodNs);
    this.wideFrameId = layout.header === 'FUSA';
    this.zoneWatch = new ZoneWatch(NO_ZONES, cpf);
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

  /** Zone Monitor's live zones from the next frame on (null: no set is active); the zone bits of ZONE16 packets follow. */
  setZones(plan: ZoneMonitorPlan | null): void {
    this.zoneWatch = new ZoneWatch(plan ?? NO_ZONES, this.plan.columnsPerFrame);
    this.zoneStates = null;
    if (this.format.layout.zoneBits)
      for (let index = 0; index < this.slotsPerFrame; index++) this.encodeAgain(index, []);
    this.withObjects.clear();
  }

  /** Objects in the scene and dirt on the window from the next frame on (fault injection). */
  setObjects(objects: readonly SceneObjectPlan[]): void {
    this.objects = objects.filter((o): o is BoxObjectPlan => o.kind !== 'soil');
    const soils = objects.filter((o): o is WindowSoilPlan => o.kind === 'soil');
    if (JSON.stringify(soils) !== JSON.stringify(this.soils)) {
      this.soils = soils;
      this.soilChanged = true;
    }
  }

  /**
   * At a frame's start: after a change of the window's dirt, the packets behind it (or behind it before) are
   * encoded again; the packets that see a box (or saw one) are encoded with the boxes where they are now.
   */
  private placeObjects(): void {
    if (this.soilChanged) {
      const soiled = packetsSoiled(this.soils, this.plan.columnsPerFrame);
      for (const index of new Set([...soiled, ...this.soiled])) this.encodeAgain(index, []);
      this.soiled = soiled;
      this.soilChanged = false;
    }
    if (this.objects.length === 0 && this.withObjects.size === 0) return;
    const boxes = boxesAt(this.objects, Date.now(), this.plan.lidarToSensor);
    const seeing = boxes.length
      ? packetsSeeing(boxes, this.plan.geometry, this.plan.columnsPerFrame)
      : new Set<number>();
    for (const index of new Set([...seeing, ...this.withObjects]))
      this.encodeAgain(index, seeing.has(index) ? boxes : []);
    this.withObjects = seeing;
  }

  /** Encodes packet `index` again from the scene, with `boxes` in it and the live zones' bits. */
  private encodeAgain(index: number, boxes: readonly LidarBox[]): void {
    const cpf = this.plan.columnsPerFrame;
    const first = index * COLUMNS_PER_PACKET;
    const img = this.scratch;
    fillLidarImage(this.scene, this.plan.returns, cpf, first, img);
    if (boxes.length) overlayBoxes(img, first, cpf, this.plan.geometry, boxes);
    if (this.soils.length) overlaySoil(img, first, cpf, this.soils);
    if (this.format.layout.zoneBits) this.zoneWatch.markZones(img, first);
    const N = img.pixels;
    this.image.range1.set(img.range1, first * N);
    this.image.reflectivity1.set(img.reflectivity1, first * N);
    this.byIndex[index] = encodeLidarPacket(img, 0, index, this.format, this.identity);
  }

  /** One packet: its template stamped with the frame's id, start time and the current alert flags. */
  protected sendSlot(slot: number, s: StreamSchedule): void {
    // The frame's packets in the order of lidar_frame_azimuth_offset: from plan.firstPacket on, through the last and 0.
    const position = s.indexOf(slot);
    const index = (position + this.plan.firstPacket) % this.slotsPerFrame;
    const frame = this.frameBase + s.frameOf(slot);
    if (frame !== this.stampedFrame) {
      const start = s.frameStartSensorNs(frame - this.frameBase);
      this.frameStartHi = Number(start >> 32n);
      this.frameStartLo = Number(start & 0xffffffffn);
      this.stampedFrame = frame;
      this.placeObjects();
    }
    // frame_id: u16 wrapping (STANDARD) or u32 strictly increasing within the init (FUSA).
    const frameId = this.wideFrameId ? frame >>> 0 : frame & 0xffff;
    const tpl = this.byIndex[index];
    if (tpl)
      this.target.send(
        this.stamper.stamp(
          tpl,
          frameId,
          this.alertFlags(),
          this.frameStartHi,
          this.frameStartLo,
          this.thermalHeader(),
          position,
        ),
      );
    if (position === this.slotsPerFrame - 1) this.sendZonePacket(frameId);
  }

  /** After a frame's last packet: the zones counted over the frame, one zone packet. */
  private sendZonePacket(frameId: number): void {
    const watch = this.zoneWatch;
    if (!this.zoneTarget) return;
    const states = watch.evaluate(this.image.range1);
    const frameStart = (BigInt(this.frameStartHi >>> 0) << 32n) | BigInt(this.frameStartLo >>> 0);
    const packet = encodeZonePacket(
      {
        headerType: this.wideFrameId ? 'FUSA' : 'STANDARD',
        frameId,
        initId: this.identity.initId,
        serialNumber: this.identity.serialNumber,
        alertFlags: this.alertFlags(),
        timestampNs: frameStart + BigInt(this.framePeriodNs),
        hash: watch.hash,
      },
      states,
      this.zonePacket,
    );
    this.zoneTarget.send(packet);
    this.zoneStates = states;
  }
}
