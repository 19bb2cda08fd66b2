/**
 * Zone packets of firmware 3.2's Zone Monitor (docs/udp-packets.md, Zone packets): one per frame, on
 * udp_dest_zm:udp_port_zm, with the state of each of the 16 live zone slots. The layout is the vendor SDK's
 * zone packet format (PacketFormat's zone fields):
 *
 * | offset | bytes | field                                                                   |
 * |--------|-------|-------------------------------------------------------------------------|
 * | 0      | 32    | packet header as lidar packets (header_type): packet_type 3, frame_id, init_id, prod_sn, alert_flags |
 * | 32     | 8     | zone timestamp, u64 ns (the end of the frame, the unit's clock)         |
 * | 40     | 32    | live_zoneset_hash: SHA-256 of the active zone set zip                   |
 * | 72     | 16×36 | zone states, one per live slot (below)                                  |
 * | 648    | 32    | footer as lidar packets: CRC-64 in the last 8 bytes (STANDARD), all zero (FUSA) |
 *
 * A zone state (36 bytes): byte 0 bit 0 live; byte 1 zone id; byte 2 error flags; byte 3 bits 2-3
 * trigger_type (1 OCCUPANCY, 2 VACANCY), bit 7 trigger_status; then u32 triggered_frames, count,
 * occlusion_count, invalid_count, max_count, min_range, max_range, mean_range (ranges in mm, 19 bits).
 * A slot with no live zone is as a real unit sends it: not live, zone id 0xff (no zone; 0 is a valid
 * id), every other byte 0.
 */
import type { HeaderType } from '../../model/index.js';
import { crc64 } from './crc64.js';
import { writeConstantHeader, writeFrameHeader } from './packet-header.js';

export const ZONE_SLOTS = 16;
export const ZONE_STATE_BYTES = 36;
export const ZONE_PACKET_HEADER_BYTES = 32;
export const ZONE_STATES_OFFSET = ZONE_PACKET_HEADER_BYTES + 8 + 32;
export const ZONE_PACKET_BYTES = ZONE_STATES_OFFSET + ZONE_SLOTS * ZONE_STATE_BYTES + 32;
/** packet_type of zone packets (lidar packets are 1, IMU packets 2). */
export const ZONE_PACKET_TYPE = 3;
/** error_flags bit: the zone has no images for this frame width (a ZRB set of another lidar_mode). */
export const ZONE_ERROR_NO_IMAGES = 1;

export interface ZoneState {
  id: number;
  errorFlags: number;
  triggerType: number;
  triggered: boolean;
  triggeredFrames: number;
  count: number;
  occlusionCount: number;
  invalidCount: number;
  maxCount: number;
  minRangeMm: number;
  maxRangeMm: number;
  meanRangeMm: number;
}

export interface ZonePacketHeader {
  /** The lidar packets' header (the SDK reads a stream's packets with one format): STANDARD when not given. */
  headerType?: HeaderType;
  frameId: number;
  initId: number;
  serialNumber: bigint;
  alertFlags: number;
  timestampNs: bigint;
  hash: Uint8Array;
}

/** Zone id of a slot with no live zone. */
export const NO_ZONE_ID = 0xff;

/** One zone packet: `states` fill the first slots; the others hold no zone (not live, id NO_ZONE_ID). */
export function encodeZonePacket(header: ZonePacketHeader, states: readonly ZoneState[], into?: Buffer): Buffer {
  const b = into ?? Buffer.alloc(ZONE_PACKET_BYTES);
  b.fill(0);
  const headerType = header.headerType ?? 'STANDARD';
  writeConstantHeader(b, headerType, ZONE_PACKET_TYPE, header);
  writeFrameHeader(b, headerType, header.frameId, header.alertFlags & 0xff);
  b.writeBigUInt64LE(header.timestampNs, ZONE_PACKET_HEADER_BYTES);
  b.set(header.hash.subarray(0, 32), ZONE_PACKET_HEADER_BYTES + 8);
  for (let slot = 0; slot < ZONE_SLOTS; slot++) {
    const o = ZONE_STATES_OFFSET + slot * ZONE_STATE_BYTES;
    const s = states[slot];
    if (!s) {
      b[o + 1] = NO_ZONE_ID;
      continue;
    }
    b[o] = 1;
    b[o + 1] = s.id & 0xff;
    b[o + 2] = s.errorFlags & 0xff;
    b[o + 3] = ((s.triggerType & 0x3) << 2) | (s.triggered ? 0x80 : 0);
    b.writeUInt32LE(s.triggeredFrames >>> 0, o + 4);
    b.writeUInt32LE(s.count >>> 0, o + 8);
    b.writeUInt32LE(s.occlusionCount >>> 0, o + 12);
    b.writeUInt32LE(s.invalidCount >>> 0, o + 16);
    b.writeUInt32LE(s.maxCount >>> 0, o + 20);
    b.writeUInt32LE(Math.min(s.minRangeMm, 0x7ffff), o + 24);
    b.writeUInt32LE(Math.min(s.maxRangeMm, 0x7ffff), o + 28);
    b.writeUInt32LE(Math.min(s.meanRangeMm, 0x7ffff), o + 32);
  }
  // The SDK reads no CRC with the FUSA header: its footer stays zero, as the lidar packets'.
  if (headerType === 'STANDARD') {
    const crc = crc64(b, 0, b.length - 8);
    b.writeUInt32LE(crc.lo >>> 0, b.length - 8);
    b.writeUInt32LE(crc.hi >>> 0, b.length - 4);
  }
  return b;
}
