/**
 * What a client's receiver sees of a stream: each datagram decoded on its own (test/udp/decoder),
 * placed in the stream by its sequence number, and the stream's defects counted.
 */
import { decodeLidarPacket } from '../../udp/decoder/lidar-decoder.js';
import { decodeImuPacket } from '../../udp/decoder/imu-decoder.js';
import { packetSize, IMU_PACKET_SIZE, type Profile } from '../../udp/decoder/formats.js';

export interface Tally {
  received: number;
  /** Distinct sequence numbers received. */
  unique: number;
  /** Sequence numbers missing between the first and the last received. */
  lost: number;
  /** Datagrams whose sequence number had been received before. */
  duplicated: number;
  /** Datagrams arriving after one with a higher sequence number. */
  reordered: number;
  /** Lidar datagrams of the right size whose CRC footer does not match. */
  corrupt: number;
  /** Datagrams shorter than the format's size. */
  truncated: number;
  /** The longest run of consecutive missing sequence numbers. */
  longestGap: number;
  /** Every run of consecutive missing sequence numbers, in stream order. */
  gaps: number[];
}

function tally(sequence: (number | 'short' | 'corrupt-unplaced')[], corrupt: number): Tally {
  const seen = new Set<number>();
  let duplicated = 0;
  let reordered = 0;
  let truncated = 0;
  let highest = -Infinity;
  let lowest = Infinity;
  for (const s of sequence) {
    if (s === 'short') {
      truncated++;
      continue;
    }
    if (s === 'corrupt-unplaced') continue;
    if (seen.has(s)) duplicated++;
    else if (s < highest) reordered++;
    seen.add(s);
    highest = Math.max(highest, s);
    lowest = Math.min(lowest, s);
  }
  const sorted = [...seen].sort((a, b) => a - b);
  const gaps: number[] = [];
  for (let i = 1; i < sorted.length; i++) if (sorted[i] - sorted[i - 1] > 1) gaps.push(sorted[i] - sorted[i - 1] - 1);
  const longestGap = Math.max(0, ...gaps);
  const lost = seen.size ? highest - lowest + 1 - seen.size : 0;
  const received = sequence.length;
  return { received, unique: seen.size, lost, duplicated, reordered, corrupt, truncated, longestGap, gaps };
}

/** Lidar packets: sequence = frame_id × packets per frame + the packet's index in its frame. */
export function tallyLidar(
  datagrams: readonly Buffer[],
  profile: Profile,
  pixels: number,
  columnsPerFrame: number,
): Tally {
  const size = packetSize(profile, pixels);
  const packetsPerFrame = columnsPerFrame / 16;
  let corrupt = 0;
  const sequence = datagrams.map((d) => {
    if (d.length < size) return 'short' as const;
    const p = decodeLidarPacket(d, profile, pixels);
    if (!p.footerOk) corrupt++;
    return p.frameId * packetsPerFrame + p.columns[0].measurementId / 16;
  });
  return tally(sequence, corrupt);
}

/** IMU packets: sequence = accelerometer timestamp on the 10 ms grid. */
export function tallyImu(datagrams: readonly Buffer[]): Tally {
  const sequence = datagrams.map((d) => {
    if (d.length < IMU_PACKET_SIZE) return 'short' as const;
    return Number(decodeImuPacket(d).accelTs / 10_000_000n);
  });
  return tally(sequence, 0);
}
