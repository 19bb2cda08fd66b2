/**
 * The benchmark's own reading of lidar and ACCEL32_GYRO32_NMEA IMU datagrams (docs/udp-packets.md), just the
 * fields it needs: init_id, frame_id and the first column's (sample's) measurement_id. Independent of the encoder's code.
 */

/** FUSA_* profiles have a different header; every other non-legacy profile has the STANDARD one. */
export type HeaderLayout = 'standard' | 'fusa';

export function headerLayout(profile: string): HeaderLayout {
  return profile.startsWith('FUSA_') ? 'fusa' : 'standard';
}

/** Frame ids wrap at 2^16 in the STANDARD header and are u32 in the FUSA header. */
export function frameIdBits(layout: HeaderLayout): 16 | 32 {
  return layout === 'fusa' ? 32 : 16;
}

export const COLUMNS_PER_PACKET = 16;
const HEADER_BYTES = 32;
/** measurement_id is at byte 8 of the first column, which follows the 32-byte header. */
const FIRST_MEASUREMENT_ID = HEADER_BYTES + 8;

export interface LidarIds {
  initId: number;
  frameId: number;
  measurementId: number;
}

/** measurement_id of an ACCEL32_GYRO32_NMEA IMU packet's first sample: after the header and the 100-byte NMEA block. */
const FIRST_IMU_MEASUREMENT_ID = HEADER_BYTES + 100 + 8;

/** The ids of a packet of `packetType` (1 lidar, 2 IMU), the measurement id read at `measurementAt`; null for others. */
function readIds(packet: Buffer, layout: HeaderLayout, packetType: number, measurementAt: number): LidarIds | null {
  if (packet.length < measurementAt + 2) return null;
  if (layout === 'fusa') {
    if (packet[0] !== packetType) return null;
    return {
      initId: packet.readUIntLE(1, 3),
      frameId: packet.readUInt32LE(4),
      measurementId: packet.readUInt16LE(measurementAt),
    };
  }
  if (packet.readUInt16LE(0) !== packetType) return null;
  return {
    initId: packet.readUIntLE(4, 3),
    frameId: packet.readUInt16LE(2),
    measurementId: packet.readUInt16LE(measurementAt),
  };
}

/** The ids of a lidar packet, or null for anything that is not one (too short, other packet type). */
export function readLidarIds(packet: Buffer, layout: HeaderLayout): LidarIds | null {
  return readIds(packet, layout, 1, FIRST_MEASUREMENT_ID);
}

/** The ids of an ACCEL32_GYRO32_NMEA IMU packet (its first sample's measurement id), or null for anything else. */
export function readImuNmeaIds(packet: Buffer, layout: HeaderLayout): LidarIds | null {
  return readIds(packet, layout, 2, FIRST_IMU_MEASUREMENT_ID);
}

/** Packets per frame for a `lidar_mode` such as "2048x10" (full azimuth window). */
export function packetsPerFrame(lidarMode: string): number {
  return Number(lidarMode.split('x')[0]) / COLUMNS_PER_PACKET;
}

/** Nominal packets per second of a `lidar_mode` (full azimuth window). */
export function nominalPacketRate(lidarMode: string): number {
  const [columns, hz] = lidarMode.split('x').map(Number);
  return (columns * hz) / COLUMNS_PER_PACKET;
}

/** Nominal ACCEL32_GYRO32_NMEA IMU packets per second: `perFrame` a frame of `lidar_mode`. */
export function imuPacketRate(lidarMode: string, perFrame: number): number {
  return Number(lidarMode.split('x')[1]) * perFrame;
}

/**
 * Counts packets missing from a stream: each packet has a place (frame, first measurement id) in
 * the sequence, and a jump over places means the packets in between never arrived.
 */
export class SequenceTracker {
  lost = 0;
  outOfOrder = 0;
  private lastFrameRaw: number | null = null;
  private frameBase = 0;
  private lastPlace: number | null = null;

  constructor(
    private readonly perFrame: number,
    private readonly frameBits: 16 | 32,
    /** Columns each packet covers (an IMU packet's share of the frame for IMU streams). */
    private readonly columnsPerPacket = COLUMNS_PER_PACKET,
  ) {}

  reset(): void {
    this.lost = 0;
    this.outOfOrder = 0;
    this.lastFrameRaw = null;
    this.frameBase = 0;
    this.lastPlace = null;
  }

  observe(frameId: number, measurementId: number): void {
    const modulus = 2 ** this.frameBits;
    if (this.lastFrameRaw !== null) {
      const forward = (frameId - this.lastFrameRaw + modulus) % modulus;
      // A step "forward" of more than half the id space is really a step back (a late packet).
      if (forward > modulus / 2) {
        this.outOfOrder++;
        return;
      }
      this.frameBase += forward;
    }
    this.lastFrameRaw = frameId;
    const place = this.frameBase * this.perFrame + Math.floor(measurementId / this.columnsPerPacket);
    if (this.lastPlace !== null) {
      if (place > this.lastPlace + 1) this.lost += place - this.lastPlace - 1;
      else if (place <= this.lastPlace) {
        this.outOfOrder++;
        return;
      }
    }
    this.lastPlace = place;
  }
}
