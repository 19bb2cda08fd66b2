/**
 * The packet layouts a recording can hold: the four current profiles (src/udp/packets/lidar-profiles.ts) and
 * LEGACY, the firmware 2.x layout a unit sends only when it replays such a recording (docs/udp-packets.md,
 * LEGACY lidar packets): no packet header or footer; each column is a 16-byte header (timestamp,
 * measurement id, frame id, encoder count), 12-byte channel blocks and a u32 status. Where the replay
 * code reads or rewrites packets it asks these helpers for offsets, so both families share it. Pure.
 */
import { type HeaderType, LEGACY_CHANNEL_BLOCK, type LidarProfile } from '../../model/index.js';
import { compileColumnReader, type ColumnCodec } from '../packets/field-codec.js';
import {
  COLUMNS_PER_PACKET,
  COLUMN_HEADER_BYTES,
  PACKET_FOOTER_BYTES,
  PACKET_HEADER_BYTES,
  PROFILE_LAYOUTS,
  columnBytes,
  layoutWithHeader,
  type ProfileLayout,
} from '../packets/lidar-profiles.js';

export type RecordedProfile = LidarProfile | 'LEGACY';

export interface LegacyLayout {
  profile: 'LEGACY';
  header: 'LEGACY';
  bytesPerChannel: 12;
  dual: false;
  readColumn: ColumnCodec;
}

export type RecordedLayout = ProfileLayout | LegacyLayout;

const LEGACY_COLUMN_HEADER_BYTES = 16;
const LEGACY_STATUS_BYTES = 4;
const LEGACY_VALID = 0xffffffff;

export const LEGACY_LAYOUT: LegacyLayout = {
  profile: 'LEGACY',
  header: 'LEGACY',
  bytesPerChannel: 12,
  dual: false,
  readColumn: compileColumnReader(LEGACY_CHANNEL_BLOCK),
};

/** `header`: the metadata's header_type (firmware 3.2); without it, the profile's own header. */
export function recordedLayout(profile: RecordedProfile, header?: HeaderType): RecordedLayout {
  if (profile === 'LEGACY') return LEGACY_LAYOUT;
  return header ? layoutWithHeader(profile, header) : PROFILE_LAYOUTS[profile];
}

export const isLegacy = (layout: RecordedLayout): layout is LegacyLayout => layout.header === 'LEGACY';

/** Bytes before the first column. */
export const packetHeaderBytes = (layout: RecordedLayout) => (isLegacy(layout) ? 0 : PACKET_HEADER_BYTES);

/** Bytes of a column's header: its channel blocks start this far into the column. */
export const columnHeaderBytes = (layout: RecordedLayout) =>
  isLegacy(layout) ? LEGACY_COLUMN_HEADER_BYTES : COLUMN_HEADER_BYTES;

export function recordedColumnBytes(layout: RecordedLayout, pixels: number): number {
  return isLegacy(layout)
    ? LEGACY_COLUMN_HEADER_BYTES + 12 * pixels + LEGACY_STATUS_BYTES
    : columnBytes(layout, pixels);
}

/** Datagram size of a lidar packet of this layout (docs/udp-packets.md, Lidar packets). */
export function recordedPacketBytes(layout: RecordedLayout, pixels: number): number {
  const footer = isLegacy(layout) ? 0 : PACKET_FOOTER_BYTES;
  return packetHeaderBytes(layout) + COLUMNS_PER_PACKET * recordedColumnBytes(layout, pixels) + footer;
}

/** Offset of column `c` of a packet. */
export const columnOffset = (layout: RecordedLayout, pixels: number, c: number) =>
  packetHeaderBytes(layout) + c * recordedColumnBytes(layout, pixels);

/** Whether column `c` holds data (status bit 0; LEGACY: status word 0xFFFFFFFF). */
export function columnValid(b: Buffer, layout: RecordedLayout, pixels: number, c: number): boolean {
  const o = columnOffset(layout, pixels, c);
  if (isLegacy(layout)) return b.readUInt32LE(o + LEGACY_COLUMN_HEADER_BYTES + 12 * pixels) === LEGACY_VALID;
  return (b.readUInt16LE(o + 10) & 1) === 1;
}

/** Marks column `c` as outside the window: status 0 and channel data zeroed (timestamp and ids kept). */
export function blankColumn(b: Buffer, layout: RecordedLayout, pixels: number, c: number): void {
  const o = columnOffset(layout, pixels, c);
  const end = o + recordedColumnBytes(layout, pixels);
  if (!isLegacy(layout)) b.writeUInt16LE(0, o + 10);
  b.fill(0, o + columnHeaderBytes(layout), end);
}

/** The measurement id of column `c` (bytes 8-9 of the column in every layout). */
export const measurementIdAt = (b: Buffer, layout: RecordedLayout, pixels: number, c: number) =>
  b.readUInt16LE(columnOffset(layout, pixels, c) + 8);

/** Pixels per column of a packet of `bytes` bytes in `layout` (what its size says), or null. */
export function pixelsOfPacket(layout: RecordedLayout, bytes: number): number | null {
  const fixed = recordedPacketBytes(layout, 0);
  const perPixel = recordedPacketBytes(layout, 1) - fixed;
  const pixels = (bytes - fixed) / perPixel;
  return Number.isInteger(pixels) && pixels > 0 ? pixels : null;
}
