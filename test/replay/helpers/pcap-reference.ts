/**
 * The test's own reading of a libpcap recording (little-endian, microsecond or nanosecond), with IPv4
 * reassembly, written from the file format alone and sharing no code with src/udp/replay: the reference
 * the replayed datagrams are compared with.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { RECORDINGS } from '../../helpers/recordings.js';

export { RECORDINGS };

/** Repository root (this file is test/replay/helpers/). */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const OS0_CRC = `${RECORDINGS}crc_test`;
export const OS1_FUSA = `${RECORDINGS}OS-1-128_767798045_1024x10_20230712_120049`;
/** Firmware 2.0 OS-2-32: LEGACY lidar packets (no header, no footer), flat metadata. */
export const OS2_LEGACY = `${RECORDINGS}OS-2-32-U0_v2.0.0_1024x10`;
/** Two sensors in one capture, lidar and IMU on port 7502; metadata `.1.json` and `.2.json`. */
export const TWO_SENSORS = `${RECORDINGS}same_ports_nonlegacy`;
/** Firmware 3.2 OS-0-128 (the vendor SDK's sample): IMU and zone packets, no lidar; metadata `_0.json` with its zone set. */
export const OS0_ZONES_NO_LIDAR = `${RECORDINGS}imu_zm_no_lidar`;
/** This project's simulated firmware 3.2 OS-1-32: RNG15_RFL8_NIR8_ZONE16 lidar, IMU and zone packets, its zone set. */
export const SIM_ZONE16 = `${RECORDINGS}sim_OS-1-32_v3.2.0_512x10_zone16`;
/** The same simulated unit with header_type FUSA: ZONE16 lidar, ACCEL32_GYRO32_NMEA IMU and zone packets. */
export const SIM_FUSA_ZONE16 = `${RECORDINGS}sim_OS-1-32_v3.2.0_512x10_fusa_zone16`;

export interface ReferenceDatagram {
  timeUs: number;
  srcAddress: string;
  dstPort: number;
  payload: Buffer;
}

export function readReferencePcap(path: string): ReferenceDatagram[] {
  const b = readFileSync(path);
  if (b.readUInt32LE(0) !== 0xa1b2c3d4 && b.readUInt32LE(0) !== 0xa1b23c4d)
    throw new Error('reference reader: not a LE pcap');
  const nano = b.readUInt32LE(0) === 0xa1b23c4d;
  const out: ReferenceDatagram[] = [];
  const partial = new Map<number, { chunks: [number, Buffer][]; end: number }>();
  for (let o = 24; o + 16 <= b.length; ) {
    const us = b.readUInt32LE(o) * 1e6 + (nano ? b.readUInt32LE(o + 4) / 1000 : b.readUInt32LE(o + 4));
    const len = b.readUInt32LE(o + 8);
    const frame = b.subarray(o + 16, o + 16 + len);
    o += 16 + len;
    if (frame.readUInt16BE(12) !== 0x0800) continue;
    const ipHeader = (frame[14] & 15) * 4;
    const total = frame.readUInt16BE(16);
    const frag = frame.readUInt16BE(20);
    const body = frame.subarray(14 + ipHeader, 14 + total);
    let udp: Buffer | null = body;
    if (frag & 0x3fff) {
      const id = frame.readUInt16BE(18);
      const entry = partial.get(id) ?? { chunks: [], end: -1 };
      partial.set(id, entry);
      entry.chunks.push([(frag & 0x1fff) * 8, body]);
      if (!(frag & 0x2000)) entry.end = (frag & 0x1fff) * 8 + body.length;
      const got = entry.chunks.reduce((n, [, c]) => n + c.length, 0);
      udp = null;
      if (entry.end >= 0 && got === entry.end) {
        udp = Buffer.alloc(entry.end);
        for (const [at, c] of entry.chunks) c.copy(udp, at);
        partial.delete(id);
      }
    }
    const srcAddress = [...frame.subarray(26, 30)].join('.');
    if (udp)
      out.push({ timeUs: us, srcAddress, dstPort: udp.readUInt16BE(2), payload: udp.subarray(8, udp.readUInt16BE(4)) });
  }
  return out;
}

/**
 * A copy of a libpcap file whose UDP datagrams are split into IPv4 fragments of at most `mtu` bytes of
 * IP payload, as a capture on a 1500-byte link holds them (derived in the test, the original is kept).
 */
export function fragmentPcap(path: string, mtu = 1480): Buffer {
  const b = readFileSync(path);
  const parts: Buffer[] = [b.subarray(0, 24)];
  let ipId = 1;
  for (let o = 24; o + 16 <= b.length; ) {
    const len = b.readUInt32LE(o + 8);
    const record = b.subarray(o, o + 16);
    const frame = b.subarray(o + 16, o + 16 + len);
    o += 16 + len;
    const ipHeader = (frame[14] & 15) * 4;
    const payload = frame.subarray(14 + ipHeader, 14 + frame.readUInt16BE(16));
    const step = Math.floor(mtu / 8) * 8;
    const id = ipId++;
    for (let at = 0; at < payload.length; at += step) {
      const chunk = payload.subarray(at, Math.min(payload.length, at + step));
      const more = at + step < payload.length;
      const head = Buffer.from(frame.subarray(0, 14 + ipHeader));
      head.writeUInt16BE(ipHeader + chunk.length, 16);
      head.writeUInt16BE(id, 18);
      head.writeUInt16BE((more ? 0x2000 : 0) | (at / 8), 20);
      head.writeUInt16BE(0, 24); // checksum not checked by readers of captures
      const rec = Buffer.from(record);
      rec.writeUInt32LE(head.length + chunk.length, 8);
      rec.writeUInt32LE(head.length + chunk.length, 12);
      parts.push(rec, head, chunk);
    }
  }
  return Buffer.concat(parts);
}

/**
 * A copy of a libpcap file of unfragmented Ethernet/IPv4/UDP records (as the simulator samples are) with each UDP
 * payload changed in place by `edit` (same length; the UDP checksum of these samples is 0, not checked).
 */
export function editPcapPayloads(path: string, edit: (payload: Buffer, dstPort: number) => void): Buffer {
  const b = Buffer.from(readFileSync(path));
  for (let o = 24; o + 16 <= b.length; ) {
    const frame = b.subarray(o + 16, o + 16 + b.readUInt32LE(o + 8));
    o += 16 + frame.length;
    const udp = frame.subarray(14 + (frame[14] & 15) * 4);
    edit(udp.subarray(8, udp.readUInt16BE(4)), udp.readUInt16BE(2));
  }
  return b;
}
