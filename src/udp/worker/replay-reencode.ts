/**
 * Re-encoding recorded lidar packets into another profile: the recorded fields (range, reflectivity,
 * signal, near-IR, second return) are decoded column by column and written again with the data plane's
 * own profile encoders (PROFILE_LAYOUTS.writeColumn), so every profile can be tried against real data.
 * Header identity, frame id, alert flags, thermal fields, column timestamps, measurement ids and column
 * status are carried over; fields the recorded profile lacks are 0 (no second return, no signal);
 * per-pixel flag bits and the WINDOW byte are not carried. Pure.
 */
import { crc64 } from '../packets/crc64.js';
import { emptyLidarImage, type LidarImage } from '../scene/lidar-image.js';
import {
  COLUMNS_PER_PACKET,
  COLUMN_HEADER_BYTES,
  PACKET_HEADER_BYTES,
  columnBytes,
  lidarPacketBytes,
  type ProfileLayout,
} from '../packets/lidar-profiles.js';
import { PACKET_TYPE, readPacketHeader, writeConstantHeader, writeFrameHeader } from '../packets/packet-header.js';
import { readLidarHeader } from '../replay/lidar-header.js';
import {
  columnHeaderBytes,
  columnOffset,
  columnValid,
  isLegacy,
  type RecordedLayout,
} from '../replay/recorded-layout.js';

/** The channel data of one recorded packet as a 16-column image (column i = the packet's column i). */
export function decodePacketImage(b: Buffer, layout: RecordedLayout, pixels: number): LidarImage {
  const img = emptyLidarImage(COLUMNS_PER_PACKET, pixels);
  for (let c = 0; c < COLUMNS_PER_PACKET; c++) {
    layout.readColumn(b, columnOffset(layout, pixels, c) + columnHeaderBytes(layout), img, c);
  }
  return img;
}

/**
 * `b` (a well-formed packet of `from`) as a packet of `to`. LEGACY packets carry no identity: the
 * header gets `identity` (the recorded unit's), as the unit's own packets would.
 */
export function reencodeLidarPacket(
  b: Buffer,
  from: RecordedLayout,
  to: ProfileLayout,
  pixels: number,
  identity: { initId: number; serial: bigint },
): Buffer {
  const header = readLidarHeader(b, from);
  const initId = header.initId ?? identity.initId;
  const serialNumber = header.serial ?? identity.serial;
  const alertFlags = isLegacy(from) ? 0 : readPacketHeader(b, from.header).alertFlags;
  const out = Buffer.alloc(lidarPacketBytes(to, pixels));
  writeConstantHeader(out, to.header, PACKET_TYPE.lidar, { initId, serialNumber });
  writeFrameHeader(out, to.header, header.frameId, alertFlags);
  if (!isLegacy(from)) b.copy(out, 16, 16, 20); // thermal and shot-limiting state
  const img = decodePacketImage(b, from, pixels);
  const toCol = columnBytes(to, pixels);
  for (let c = 0; c < COLUMNS_PER_PACKET; c++) {
    const src = columnOffset(from, pixels, c);
    const dst = PACKET_HEADER_BYTES + c * toCol;
    const valid = columnValid(b, from, pixels, c);
    if (isLegacy(from)) {
      b.copy(out, dst, src, src + 10); // timestamp, measurement id; the status word becomes bit 0
      out.writeUInt16LE(valid ? 1 : 0, dst + 10);
    } else b.copy(out, dst, src, src + COLUMN_HEADER_BYTES); // timestamp, measurement id, status
    if (valid) to.writeColumn(out, dst + COLUMN_HEADER_BYTES, img, c);
  }
  if (to.header === 'STANDARD') writeCrc(out);
  return out;
}

/** Writes the CRC-64 of a STANDARD packet into its last 8 bytes. */
export function writeCrc(b: Buffer): void {
  const { lo, hi } = crc64(b, 0, b.length - 8);
  b.writeUInt32LE(lo, b.length - 8);
  b.writeUInt32LE(hi, b.length - 4);
}
