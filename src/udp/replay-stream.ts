/**
 * The replay source of the emitter worker, beside the synthetic scene: a recording's lidar and IMU
 * datagrams, sent in recorded order on the recorded timetable (scaled by the rate) to the active
 * destinations. The first pass is byte-exact (or re-encoded into the active profile); later passes of a
 * loop get frame ids and timestamps moved on by whole passes, with the CRC corrected for the change.
 */
import type { LidarProfile } from '../model/sensor-config.js';
import {
  correctCrc,
  frameIdModulus,
  readLidarHeader,
  shiftColumnTimestamps,
  shiftImuTimestamps,
  writeFrameId,
} from '../replay/lidar-header.js';
import { loadRecording, type Recording } from '../replay/recording.js';
import { reencodeLidarPacket } from '../replay/reencode.js';
import { applyColumnWindow } from '../replay/column-window.js';
import { ReplaySchedule } from '../replay/replay-schedule.js';
import { PROFILE_LAYOUTS, type ProfileLayout } from './lidar-profiles.js';
import type { PacedSource } from './pacer.js';
import type { UdpTarget } from './udp-target.js';

export interface ReplaySourcePlan {
  file: string;
  metadataFile: string;
  rate: number;
  loop: boolean;
  startOffsetNs: number;
  /** Profile of the lidar packets sent: the recorded one sends them as recorded. */
  profile: LidarProfile;
  /** Active column window: columns outside it are blanked, packets wholly outside it not sent. */
  columnWindow: [number, number];
}

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
  const to = PROFILE_LAYOUTS[plan.profile];
  const bytes = recording.packets.map((p) => {
    if (p.kind === 'imu') return p.bytes;
    if (!p.wellFormed) {
      // A truncated or corrupt packet has no columns to decode: it is not sent in another profile.
      return plan.profile === recording.profile ? p.bytes : null;
    }
    const encoded =
      plan.profile === recording.profile
        ? p.bytes
        : reencodeLidarPacket(p.bytes, recording.layout, to, recording.pixels);
    return windowed ? applyColumnWindow(encoded, to, recording.pixels, plan.columnWindow) : encoded;
  });
  cachedEncoding = { key, bytes };
  return bytes;
}

export class ReplayStream implements PacedSource {
  private readonly recording: Recording;
  private readonly schedule: ReplaySchedule;
  private readonly bytes: (Buffer | null)[];
  private readonly layout: ProfileLayout;
  private next = 0;
  private startLocalMs = 0;

  constructor(
    plan: ReplaySourcePlan,
    private readonly targets: { lidar: UdpTarget | null; imu: UdpTarget | null },
  ) {
    this.recording = recordingFor(plan);
    this.bytes = firstPassBytes(this.recording, plan);
    this.layout = PROFILE_LAYOUTS[plan.profile];
    const times = this.recording.packets.map((p) => p.timeNs);
    this.schedule = new ReplaySchedule(times, this.recording.passNs, plan.rate, plan.startOffsetNs, plan.loop);
  }

  begin(startLocalMs: number): void {
    this.startLocalMs = startLocalMs;
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
    const target = packet.kind === 'lidar' ? this.targets.lidar : this.targets.imu;
    if (!bytes || !target) return;
    const pass = this.schedule.passOf(k);
    target.send(pass === 0 ? bytes : this.movedOn(bytes, packet.kind, pass));
  }

  /** A copy of `bytes` as pass `pass` of a loop: frame ids and timestamps moved on, CRC corrected. */
  private movedOn(bytes: Buffer, kind: 'lidar' | 'imu', pass: number): Buffer {
    const out = Buffer.from(bytes);
    const deltaNs = BigInt(Math.round(pass * this.schedule.passNs));
    if (kind === 'imu') {
      shiftImuTimestamps(out, deltaNs);
      return out;
    }
    const layout = this.layout;
    if (out.length < 44) return out;
    const modulus = frameIdModulus(layout);
    const frameId = readLidarHeader(out, layout).frameId;
    writeFrameId(out, layout, (frameId + pass * this.recording.framesPerPass) % modulus);
    shiftColumnTimestamps(out, layout, this.recording.pixels, deltaNs);
    if (layout.header === 'STANDARD') correctCrc(bytes, out);
    return out;
  }
}
