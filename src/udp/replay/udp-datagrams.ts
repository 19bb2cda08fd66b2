/**
 * UDP datagrams out of captured link-layer frames: Ethernet (with 802.1Q tags), Linux cooked capture
 * (SLL and SLL2) or raw IPv4, IPv4 fragments reassembled (lidar datagrams are larger than an Ethernet
 * MTU, so a capture holds them as fragments). Pure.
 *
 * A datagram's time is the capture time of its last fragment: that is when the unit finished sending it.
 */
import type { CapturedFrame } from './capture-file.js';

export interface UdpDatagram {
  timeNs: bigint;
  srcAddress: string;
  dstAddress: string;
  srcPort: number;
  dstPort: number;
  payload: Buffer;
  /** IP fragments it was reassembled from (1 when it was not fragmented). */
  fragments: number;
}

export interface DatagramExtraction {
  datagrams: UdpDatagram[];
  /** IP fragments seen (of fragmented datagrams only). */
  fragments: number;
  /** Fragmented datagrams whose fragments never all arrived. */
  incomplete: number;
  /** Frames that hold no IPv4 UDP (ARP, IPv6, TCP, …) or are cut short by the capture. */
  skippedFrames: number;
  /** Datagrams whose UDP length disagrees with the bytes captured (cut short). */
  shortDatagrams: number;
}

const ETHERTYPE_IPV4 = 0x0800;
const ETHERTYPE_VLAN = [0x8100, 0x88a8];

/** Offset of the IPv4 header inside a frame, or -1 when the frame carries no IPv4. */
function ipv4Offset(frame: CapturedFrame): number {
  const d = frame.data;
  switch (frame.linkType) {
    case 1: {
      let o = 12;
      while (o + 2 <= d.length && ETHERTYPE_VLAN.includes(d.readUInt16BE(o))) o += 4;
      return o + 2 <= d.length && d.readUInt16BE(o) === ETHERTYPE_IPV4 ? o + 2 : -1;
    }
    case 113:
      return d.length >= 16 && d.readUInt16BE(14) === ETHERTYPE_IPV4 ? 16 : -1;
    case 276:
      return d.length >= 20 && d.readUInt16BE(0) === ETHERTYPE_IPV4 ? 20 : -1;
    case 101:
    case 228:
      return 0;
    default:
      return -1;
  }
}

const ip = (b: Buffer, o: number) => `${b[o]}.${b[o + 1]}.${b[o + 2]}.${b[o + 3]}`;

interface Pending {
  parts: { offset: number; data: Buffer }[];
  /** Total payload length, known once the last fragment (MF = 0) arrived. */
  total: number;
  header: { src: string; dst: string };
}

export function extractUdpDatagrams(frames: readonly CapturedFrame[]): DatagramExtraction {
  const out: DatagramExtraction = { datagrams: [], fragments: 0, incomplete: 0, skippedFrames: 0, shortDatagrams: 0 };
  const pending = new Map<string, Pending>();
  for (const frame of frames) {
    const d = frame.data;
    const o = ipv4Offset(frame);
    if (o < 0 || o + 20 > d.length || d[o] >> 4 !== 4) {
      out.skippedFrames++;
      continue;
    }
    const ihl = (d[o] & 0x0f) * 4;
    const totalLength = d.readUInt16BE(o + 2);
    const id = d.readUInt16BE(o + 4);
    const flagsFrag = d.readUInt16BE(o + 6);
    const moreFragments = (flagsFrag & 0x2000) !== 0;
    const fragOffset = (flagsFrag & 0x1fff) * 8;
    const protocol = d[o + 9];
    if (protocol !== 17) {
      out.skippedFrames++;
      continue;
    }
    const src = ip(d, o + 12);
    const dst = ip(d, o + 16);
    const payload = d.subarray(o + ihl, Math.min(d.length, o + totalLength));
    if (!moreFragments && fragOffset === 0) {
      addDatagram(out, frame.timeNs, src, dst, payload, 1);
      continue;
    }
    out.fragments++;
    const key = `${src}>${dst}/${id}`;
    let p = pending.get(key);
    if (!p) pending.set(key, (p = { parts: [], total: -1, header: { src, dst } }));
    p.parts.push({ offset: fragOffset, data: payload });
    if (!moreFragments) p.total = fragOffset + payload.length;
    if (p.total < 0) continue;
    const have = p.parts.reduce((n, part) => n + part.data.length, 0);
    if (have < p.total) continue;
    pending.delete(key);
    const whole = Buffer.alloc(p.total);
    for (const part of p.parts) part.data.copy(whole, part.offset);
    addDatagram(out, frame.timeNs, p.header.src, p.header.dst, whole, p.parts.length);
  }
  out.incomplete = pending.size;
  return out;
}

function addDatagram(
  out: DatagramExtraction,
  timeNs: bigint,
  src: string,
  dst: string,
  udp: Buffer,
  fragments: number,
) {
  if (udp.length < 8) {
    out.skippedFrames++;
    return;
  }
  const length = udp.readUInt16BE(4);
  if (length > udp.length) out.shortDatagrams++;
  out.datagrams.push({
    timeNs,
    srcAddress: src,
    dstAddress: dst,
    srcPort: udp.readUInt16BE(0),
    dstPort: udp.readUInt16BE(2),
    payload: udp.subarray(8, Math.min(udp.length, Math.max(8, length))),
    fragments,
  });
}
