/**
 * The replay source of the emitter worker, beside the synthetic scene: a recording's lidar, IMU and zone
 * datagrams, sent in recorded order on the recorded timetable (scaled by the rate) to the active
 * destinations. The first pass is byte-exact (or re-encoded into the active profile); later passes of a
 * loop get frame ids and timestamps moved on by whole passes, with the CRC corrected for the change.
 */
import {
  correctCrc,
  frameIdModulus,
  readLidarHeader,
  shiftColumnTimestamps,
  shiftImuTimestamps,
  streamHeader,
  writeFrameId,
} from '../replay/lidar-header.js';
import { loadRecording, type Recording } from '../replay/recording.js';
import { reencodeLidarPacket } from './replay-reencode.js';
import { applyColumnWindow } from '../replay/column-window.js';
import type { ReplaySchedule } from './replay-schedule.js';
import { replayTimetable } from './replay-timetable.js';
import type { LoopPass } from '../replay/loop-pass.js';
import {
  columnHeaderBytes,
  columnOffset,
  columnValid,
  measurementIdAt,
  recordedLayout,
  type RecordedLayout,
} from '../replay/recorded-layout.js';
import { IMU_PACKET_BYTES } from '../packets/imu-packet.js';
import { imuNmeaMeasurementsOf, moveImuNmeaPacket } from '../packets/imu-nmea-packet.js';
import { COLUMNS_PER_PACKET, layoutWithHeader } from '../packets/lidar-profiles.js';
import { readPacketHeader, writeFrameId as writeHeaderFrameId } from '../packets/packet-header.js';
import type { HeaderType } from '../../model/index.js';
import type { ReplaySourcePlan } from '../contract/stream-plan.js';
import { ZONE_PACKET_HEADER_BYTES } from '../packets/zone-packet.js';
import { emptyLidarImage } from '../scene/lidar-image.js';
import type { PacedSource } from './pacer.js';
import type { PreviewImage } from './preview-frame.js';
import type { UdpTarget } from './udp-target.js';
import type { PacketKind } from '../replay/capture-sensors.js';

/** The last loaded recording and its packets in the last profile: a reinit that keeps both reuses them. */
let cached: { key: string; recording: Recording } | null = null;
let cachedEncoding: { key: string; bytes: (Buffer | null)[] } | null = null;

function recordingFor(plan: ReplaySourcePlan): Recording {
  const key = `${plan.file}\0${plan.metadataFile}`;
  if (cached?.key !== key) cached = { key, recording: loadRecording(plan.file, plan.metadataFile) };
  return cached.recording;
}

/** Bytes of each packet for the first pass; null where a packet cannot be sent in this profile. */
function firstPassBytes(recording: Recording, plan: ReplaySourcePlan): (Buffer | null)[] {
  const recordedWindow = recording.metadata.dataFormat.column_window;
  const windowed = plan.columnWindow[0] !== recordedWindow[0] || plan.columnWindow[1] !== recordedWindow[1];
  if (plan.profile === recording.profile && !windowed) return recording.packets.map((p) => p.bytes);
  const key = `${plan.file}\0${plan.metadataFile}\0${plan.profile}\0${plan.columnWindow.join('-')}`;
  if (cachedEncoding?.key === key) return cachedEncoding.bytes;
  const to = recordedLayout(plan.profile, plan.header);
  const identity = {
    initId: recording.metadata.sensorInfo.initialization_id,
    serial: /^[0-9]+$/.test(recording.metadata.sensorInfo.prod_sn) ? BigInt(recording.metadata.sensorInfo.prod_sn) : 0n,
  };
  const bytes = recording.packets.map((p) => {
    // IMU and zone packets do not depend on the lidar profile or window.
    if (p.kind !== 'lidar') return p.bytes;
    if (!p.wellFormed) {
      // A truncated or corrupt packet has no columns to decode: it is not sent in another profile.
      return plan.profile === recording.profile ? p.bytes : null;
    }
    // A profile other than the recorded one is always a current profile (the configuration offers LEGACY
    // only as the recorded one).
    const encoded =
      plan.profile === recording.profile || plan.profile === 'LEGACY'
        ? p.bytes
        : reencodeLidarPacket(
            p.bytes,
            recording.layout,
            layoutWithHeader(plan.profile, plan.header ?? 'STANDARD'),
            recording.pixels,
            identity,
          );
    return windowed ? applyColumnWindow(encoded, to, recording.pixels, plan.columnWindow) : encoded;
  });
  cachedEncoding = { key, bytes };
  return bytes;
}

export class ReplayStream implements PacedSource {
  private readonly recording: Recording;
  private readonly schedule: ReplaySchedule;
  private readonly bytes: (Buffer | null)[];
  private readonly layout: RecordedLayout;
  private readonly loopPass: LoopPass;
  private readonly sends: (k: number) => boolean;
  /** The header every packet of the stream carries, and the lidar frame ids' modulus: fixed by the recording and the plan. */
  private readonly header: HeaderType;
  private readonly frameIdModulus: number;
  private next = 0;
  private startLocalMs = 0;
  /** The live view's picture and the send it was made after (rebuilt only when more was sent). */
  private preview: { sent: number; image: PreviewImage } | null = null;

  constructor(
    private readonly plan: ReplaySourcePlan,
    private readonly targets: { lidar: UdpTarget | null; imu: UdpTarget | null; zones?: UdpTarget | null },
  ) {
    this.recording = recordingFor(plan);
    this.bytes = firstPassBytes(this.recording, plan);
    this.layout =
      plan.profile === this.recording.profile ? this.recording.layout : recordedLayout(plan.profile, plan.header);
    const timetable = replayTimetable(this.recording, plan);
    this.schedule = timetable.schedule;
    this.loopPass = timetable.loopPass;
    this.sends = timetable.sends;
    this.header = streamHeader(this.recording.layout);
    this.frameIdModulus = frameIdModulus(this.layout);
  }

  /** @param startLocalMs performance.now() of the start */
  begin(startLocalMs: number): void {
    const epoch = this.plan.timetableEpochMs;
    if (epoch === undefined) {
      this.startLocalMs = startLocalMs;
      return;
    }
    // The shared timetable: the next pass boundary from now (performance.timeOrigin maps Unix time to this clock).
    const epochLocalMs = epoch - performance.timeOrigin;
    const passMs = this.schedule.passNs / this.schedule.rate / 1e6;
    const pass = Math.max(0, Math.ceil((startLocalMs - epochLocalMs) / passMs));
    if (this.plan.loop) {
      this.startLocalMs = epochLocalMs;
      this.next = pass * this.schedule.perPass;
    } else this.startLocalMs = epochLocalMs + pass * passMs;
  }

  /**
   * The live view's picture: the last rotation's worth of lidar packets sent, decoded from the bytes sent
   * (in the active profile), each column at its measurement id; null before the first lidar packet.
   */
  previewImage(): PreviewImage | null {
    if (this.preview?.sent === this.next) return this.preview.image;
    const { columnsPerFrame: columns, pixels } = this.recording;
    const image = {
      ...emptyLidarImage(columns, pixels),
      pixelShiftByRow: this.recording.metadata.dataFormat.pixel_shift_by_row,
    };
    const recent: Buffer[] = [];
    for (let k = this.next - 1; k >= 0 && recent.length < columns / COLUMNS_PER_PACKET; k--) {
      const index = this.schedule.packetOf(k);
      const bytes = this.bytes[index];
      if (this.recording.packets[index].kind === 'lidar' && bytes && this.recording.packets[index].wellFormed)
        recent.push(bytes);
    }
    if (recent.length === 0) return null;
    for (const bytes of recent.reverse()) {
      for (let c = 0; c < COLUMNS_PER_PACKET; c++) {
        const m = measurementIdAt(bytes, this.layout, pixels, c);
        if (m >= columns || !columnValid(bytes, this.layout, pixels, c)) continue;
        this.layout.readColumn(bytes, columnOffset(this.layout, pixels, c) + columnHeaderBytes(this.layout), image, m);
      }
    }
    this.preview = { sent: this.next, image };
    return image;
  }

  nextDueMs(): number {
    if (this.next >= this.schedule.length) return Infinity;
    return this.startLocalMs + this.schedule.dueNs(this.next) / 1e6;
  }

  sendDue(nowMs: number): void {
    // Every packet is sent, late or not: dropping recorded packets would change the recording.
    while (this.next < this.schedule.length && this.startLocalMs + this.schedule.dueNs(this.next) / 1e6 <= nowMs) {
      this.send(this.next++);
    }
  }

  private send(k: number): void {
    const index = this.schedule.packetOf(k);
    const packet = this.recording.packets[index];
    const bytes = this.bytes[index];
    const target =
      packet.kind === 'lidar' ? this.targets.lidar : packet.kind === 'imu' ? this.targets.imu : this.targets.zones;
    const pass = this.schedule.passOf(k);
    if (!bytes || !target || !this.sends(k)) return;
    target.send(pass === 0 ? bytes : this.movedOn(bytes, packet.kind, pass));
  }

  /**
   * A copy of `bytes` as pass `pass` of a loop: frame ids moved on by whole passes of frames, every timestamp by as
   * many frame periods (without frames: by whole passes of the timetable), the CRC corrected.
   */
  private movedOn(bytes: Buffer, kind: PacketKind, pass: number): Buffer {
    const out = Buffer.from(bytes);
    const deltaNs = BigInt(Math.round(pass * (this.loopPass.frameTimeNs ?? this.schedule.passNs)));
    const frames = pass * this.loopPass.frames;
    // ACCEL32_GYRO32_NMEA IMU and zone packets carry the header the recording's lidar packets have.
    if (kind === 'imu') {
      if (out.length === IMU_PACKET_BYTES) shiftImuTimestamps(out, deltaNs);
      else if (imuNmeaMeasurementsOf(out.length) !== null) {
        moveImuNmeaPacket(out, this.header, frames, deltaNs);
        if (this.header === 'STANDARD') correctCrc(bytes, out);
      }
      // Other IMU packets have no known place for their timestamps: sent as recorded.
      return out;
    }
    if (kind === 'zone') {
      if (out.length < ZONE_PACKET_HEADER_BYTES + 16) return out;
      // The frame id of their frame (u16, FUSA's u32) and a u64 timestamp.
      writeHeaderFrameId(out, this.header, readPacketHeader(out, this.header).frameId + frames);
      const at = ZONE_PACKET_HEADER_BYTES;
      out.writeBigUInt64LE((out.readBigUInt64LE(at) + deltaNs) & 0xffffffffffffffffn, at);
      if (this.header === 'STANDARD') correctCrc(bytes, out);
      return out;
    }
    const layout = this.layout;
    if (out.length < 44) return out;
    const frameId = readLidarHeader(out, layout).frameId;
    writeFrameId(out, layout, this.recording.pixels, (frameId + frames) % this.frameIdModulus);
    shiftColumnTimestamps(out, layout, this.recording.pixels, deltaNs);
    if (layout.header === 'STANDARD') correctCrc(bytes, out);
    return out;
  }
}
