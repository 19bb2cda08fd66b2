/**
 * Lidar packets (docs/udp-packets.md). A configuration's packets are encoded once into one template per
 * packet position of a frame; sending then only stamps the frame id, alert flags and column timestamps
 * into the template and refreshes the CRC through crc64-patch.ts.
 */
import { crc64, type Crc64Register } from './crc64.js';
import { PACKET_TYPE, type SensorIdentity, writeConstantHeader, writeFrameHeader } from './packet-header.js';
import { Crc64Patcher, type VariableRange } from './crc64-patch.js';
import type { LidarImage } from '../scene/lidar-image.js';
import {
  COLUMNS_PER_PACKET,
  COLUMN_HEADER_BYTES,
  PACKET_HEADER_BYTES,
  columnBytes,
  lidarPacketBytes,
  type ProfileLayout,
} from './lidar-profiles.js';

export interface LidarFrameFormat {
  layout: ProfileLayout;
  columnsPerFrame: number;
  pixelsPerColumn: number;
  /** Inclusive `[first, last]` measurement ids; wraps through 0 when first > last. */
  columnWindow: readonly [number, number];
}

export type { SensorIdentity };

export interface LidarPacketTemplate {
  /** Index of the packet in its frame: it carries measurement ids `16·index .. 16·index + 15`. */
  index: number;
  bytes: Buffer;
  /** CRC of the template with the variable fields zeroed; null for FUSA packets (no CRC). */
  crc: Crc64Register | null;
}

const isInWindow = (m: number, [first, last]: readonly [number, number]) =>
  first <= last ? m >= first && m <= last : m >= first || m <= last;

/**
 * The template of packet `index` (frame columns index·16 … index·16 + 15), its channel data read from
 * `image` starting at image column `at` (the frame's image: index·16; a packet's own image: 0). Null
 * when no column of the packet lies in the window.
 */
export function encodeLidarPacket(
  image: LidarImage,
  at: number,
  index: number,
  format: LidarFrameFormat,
  id: SensorIdentity,
): LidarPacketTemplate | null {
  const { layout, pixelsPerColumn, columnWindow } = format;
  let anyValid = false;
  for (let i = 0; i < COLUMNS_PER_PACKET; i++) anyValid ||= isInWindow(index * COLUMNS_PER_PACKET + i, columnWindow);
  if (!anyValid) return null;
  const size = lidarPacketBytes(layout, pixelsPerColumn);
  const colBytes = columnBytes(layout, pixelsPerColumn);
  const b = Buffer.alloc(size);
  writeConstantHeader(b, layout.header, PACKET_TYPE.lidar, id);
  // Thermal / shot-limiting countdowns and states (bytes 16-19) are stamped per packet (LidarPacketStamper).
  for (let i = 0; i < COLUMNS_PER_PACKET; i++) {
    const m = index * COLUMNS_PER_PACKET + i;
    const col = PACKET_HEADER_BYTES + i * colBytes;
    b.writeUInt16LE(m, col + 8);
    if (!isInWindow(m, columnWindow)) continue; // status 0, channel data zero
    b.writeUInt16LE(1, col + 10);
    layout.writeColumn(b, col + COLUMN_HEADER_BYTES, image, at + i);
  }
  const crc = layout.header === 'STANDARD' ? crc64(b, 0, size - 8) : null;
  return { index, bytes: b, crc };
}

/** The bytes that change from packet to packet, for the CRC patcher. */
function variableRanges(layout: ProfileLayout, colBytes: number): VariableRange[] {
  const header: VariableRange[] =
    layout.header === 'STANDARD'
      ? [
          { offset: 2, length: 2 }, // frame_id
          { offset: 12, length: 1 }, // alert_flags
          { offset: 16, length: 4 }, // thermal and shot-limiting countdowns and states
        ]
      : [
          { offset: 4, length: 5 }, // frame_id u32 + alert_flags
          { offset: 16, length: 4 },
        ];
  const timestamps = Array.from({ length: COLUMNS_PER_PACKET }, (_, i) => ({
    offset: PACKET_HEADER_BYTES + i * colBytes,
    length: 8,
  }));
  return [...header, ...timestamps];
}

/** Writes the per-packet fields into templates of one format. */
export class LidarPacketStamper {
  private readonly colBytes: number;
  private readonly patcher: Crc64Patcher | null;
  /** `floor(m · frame period / columns per frame)`: column m's time after the frame start, ns. */
  private readonly columnOffsetNs: Float64Array;
  private readonly crcOut: Crc64Register = { lo: 0, hi: 0 };

  constructor(
    private readonly format: LidarFrameFormat,
    framePeriodNs: number,
  ) {
    const size = lidarPacketBytes(format.layout, format.pixelsPerColumn);
    this.colBytes = columnBytes(format.layout, format.pixelsPerColumn);
    this.patcher =
      format.layout.header === 'STANDARD'
        ? new Crc64Patcher(size - 8, variableRanges(format.layout, this.colBytes))
        : null;
    this.columnOffsetNs = Float64Array.from({ length: format.columnsPerFrame }, (_, m) =>
      Math.floor((m * framePeriodNs) / format.columnsPerFrame),
    );
  }

  /**
   * Stamps `tpl` in place and returns its bytes, ready to send.
   * @param frameStartHi high 32 bits of the frame's start time, ns of the sensor clock
   * @param frameStartLo low 32 bits
   */
  stamp(
    tpl: LidarPacketTemplate,
    frameId: number,
    alertFlags: number,
    frameStartHi: number,
    frameStartLo: number,
    /** Bytes 16-19 (countdown_thermal_shutdown, countdown_shot_limiting, thermal_shutdown, shot_limiting) as LE u32. */
    thermalHeader = 0,
    /** The packet's place in its frame (lidar_frame_azimuth_offset starts frames elsewhere than packet 0): its columns' times. */
    position = tpl.index,
  ): Buffer {
    const b = tpl.bytes;
    b.writeUInt32LE(thermalHeader >>> 0, 16);
    writeFrameHeader(b, this.format.layout.header, frameId, alertFlags);
    const first = position * COLUMNS_PER_PACKET;
    for (let i = 0; i < COLUMNS_PER_PACKET; i++) {
      const o = PACKET_HEADER_BYTES + i * this.colBytes;
      const sum = frameStartLo + this.columnOffsetNs[first + i];
      const carry = sum >= 4294967296 ? 1 : 0;
      b.writeUInt32LE(sum - carry * 4294967296, o);
      b.writeUInt32LE((frameStartHi + carry) >>> 0, o + 4);
    }
    if (this.patcher && tpl.crc) {
      const crc = this.patcher.crc(b, tpl.crc, this.crcOut);
      const end = b.length;
      b.writeUInt32LE(crc.lo, end - 8);
      b.writeUInt32LE(crc.hi, end - 4);
    }
    return b;
  }
}
