/**
 * The lidar packet profiles (docs/udp-packets.md): header kind, channel block size and how one pixel's
 * returns are packed into its channel block, all from the profile's field table
 * (src/model/lidar-field-tables.ts) through the codecs compiled from it (field-codec.ts).
 */
import {
  CHANNEL_BLOCKS,
  type HeaderType,
  LIDAR_PROFILES,
  hasField,
  lidarHeaderType,
  type LidarProfile,
} from '../../model/index.js';
import { compileColumnReader, compileColumnWriter, type ColumnCodec } from './field-codec.js';

export const COLUMNS_PER_PACKET = 16;
export const PACKET_HEADER_BYTES = 32;
export const PACKET_FOOTER_BYTES = 32;
export const COLUMN_HEADER_BYTES = 12;

export type HeaderKind = HeaderType;

export interface ProfileLayout {
  profile: LidarProfile;
  header: HeaderKind;
  bytesPerChannel: number;
  dual: boolean;
  /** The `*_ZONE16` profiles: each pixel carries the bits of the live zones that hold its return (LidarImage.zoneMask). */
  zoneBits: boolean;
  /**
   * Writes the channel blocks of one column: pixels `0 .. img.pixels-1` of image column `m`, the first
   * block at `offset`. The bytes are zero beforehand (reserved fields, flags and WINDOW stay 0).
   */
  writeColumn: ColumnCodec;
  /**
   * The inverse of writeColumn, for recorded packets (replay): reads the channel blocks at `offset` into
   * image column `m`, in millimetres and full-scale near-IR as the image holds them. Flag bits are dropped.
   */
  readColumn: ColumnCodec;
}

function layoutOf(profile: LidarProfile): ProfileLayout {
  const block = CHANNEL_BLOCKS[profile];
  return {
    profile,
    // The profile's own header, which a recording without header_type (before firmware 3.2) has.
    header: lidarHeaderType(profile, 'STANDARD'),
    bytesPerChannel: block.bytes,
    dual: hasField(block, 'RANGE2'),
    zoneBits: hasField(block, 'ZONE_MASK'),
    writeColumn: compileColumnWriter(block),
    readColumn: compileColumnReader(block),
  };
}

export const PROFILE_LAYOUTS: Readonly<Record<LidarProfile, ProfileLayout>> = Object.fromEntries(
  LIDAR_PROFILES.map((profile) => [profile, layoutOf(profile)]),
) as Record<LidarProfile, ProfileLayout>;

const withFusaHeader = new Map<LidarProfile, ProfileLayout>();

/** The profile's layout with the packet header of `header_type` (firmware 3.2: FUSA for any profile). */
export function layoutWithHeader(profile: LidarProfile, header: HeaderKind): ProfileLayout {
  const own = PROFILE_LAYOUTS[profile];
  if (lidarHeaderType(profile, header) === own.header) return own;
  let fusa = withFusaHeader.get(profile);
  if (!fusa) withFusaHeader.set(profile, (fusa = { ...own, header: 'FUSA' }));
  return fusa;
}

export function columnBytes(layout: ProfileLayout, pixelsPerColumn: number): number {
  return COLUMN_HEADER_BYTES + layout.bytesPerChannel * pixelsPerColumn;
}

/** Datagram size of a lidar packet (docs/udp-packets.md, Lidar packets). */
export function lidarPacketBytes(layout: ProfileLayout, pixelsPerColumn: number): number {
  return PACKET_HEADER_BYTES + COLUMNS_PER_PACKET * columnBytes(layout, pixelsPerColumn) + PACKET_FOOTER_BYTES;
}
