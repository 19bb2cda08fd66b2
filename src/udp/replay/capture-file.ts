/**
 * Reads capture files: classic libpcap (either byte order, micro- or nanosecond timestamps) and pcapng
 * (section header, interface description, enhanced and simple packet blocks). Pure: bytes in, link-layer
 * frames with their capture time out.
 *
 * Hand-written on purpose: the npm packages for this (pcap-parser 0.2, pcap-ng-parser 1.0) are streaming
 * readers last published years ago, each covering only one of the two formats, and `pcap` binds the C
 * libpcap (a native build). The formats are small and fully specified; reading them is ~150 lines.
 */

export interface CapturedFrame {
  /** Capture time, ns since the epoch. */
  timeNs: bigint;
  /** Link type of the frame's interface (1 Ethernet, 113 Linux SLL, 101/228 raw IPv4, 276 SLL2). */
  linkType: number;
  data: Buffer;
  /** Bytes the frame had on the wire; more than data.length when the capture cut it short. */
  wireLength: number;
}

export interface CaptureFile {
  format: 'pcap' | 'pcapng';
  frames: CapturedFrame[];
  /** The file ends inside a record: the last record was dropped. */
  truncated: boolean;
}

export class CaptureFormatError extends Error {}

const PCAP_MAGIC_US = 0xa1b2c3d4;
const PCAP_MAGIC_NS = 0xa1b23c4d;
const PCAPNG_SHB = 0x0a0d0d0a;
const PCAPNG_BYTE_ORDER = 0x1a2b3c4d;

export function readCaptureFile(bytes: Buffer): CaptureFile {
  if (bytes.length < 4) throw new CaptureFormatError('not a capture file: too short to hold a pcap or pcapng header');
  if (bytes.readUInt32LE(0) === PCAPNG_SHB) return readPcapng(bytes);
  return readPcap(bytes);
}

function readPcap(b: Buffer): CaptureFile {
  const magicLE = b.readUInt32LE(0);
  const magicBE = b.readUInt32BE(0);
  const le = magicLE === PCAP_MAGIC_US || magicLE === PCAP_MAGIC_NS;
  if (!le && magicBE !== PCAP_MAGIC_US && magicBE !== PCAP_MAGIC_NS) {
    throw new CaptureFormatError(`not a pcap or pcapng file (first bytes ${b.subarray(0, 4).toString('hex')})`);
  }
  if (b.length < 24) throw new CaptureFormatError('truncated pcap: the 24-byte file header is incomplete');
  const u32 = (o: number) => (le ? b.readUInt32LE(o) : b.readUInt32BE(o));
  const nanos = (le ? magicLE : magicBE) === PCAP_MAGIC_NS;
  const linkType = u32(20) & 0x0fffffff;
  const frames: CapturedFrame[] = [];
  let o = 24;
  let truncated = false;
  while (o < b.length) {
    if (o + 16 > b.length) {
      truncated = true;
      break;
    }
    const sec = u32(o);
    const frac = u32(o + 4);
    const inclLen = u32(o + 8);
    const origLen = u32(o + 12);
    if (o + 16 + inclLen > b.length) {
      truncated = true;
      break;
    }
    const timeNs = BigInt(sec) * 1_000_000_000n + BigInt(nanos ? frac : frac * 1000);
    frames.push({ timeNs, linkType, data: b.subarray(o + 16, o + 16 + inclLen), wireLength: origLen });
    o += 16 + inclLen;
  }
  return { format: 'pcap', frames, truncated };
}

interface Interface {
  linkType: number;
  /** Timestamp units per second. */
  unitsPerSecond: bigint;
}

function readPcapng(b: Buffer): CaptureFile {
  const frames: CapturedFrame[] = [];
  let interfaces: Interface[] = [];
  let le = true;
  let o = 0;
  let truncated = false;
  while (o < b.length) {
    if (o + 12 > b.length) {
      truncated = true;
      break;
    }
    const type = b.readUInt32LE(o);
    if (type === PCAPNG_SHB) {
      const order = b.readUInt32LE(o + 8);
      if (order === PCAPNG_BYTE_ORDER) le = true;
      else if (b.readUInt32BE(o + 8) === PCAPNG_BYTE_ORDER) le = false;
      else throw new CaptureFormatError('not a pcapng file: bad byte-order magic in the section header');
      interfaces = [];
    }
    const u32 = (p: number) => (le ? b.readUInt32LE(p) : b.readUInt32BE(p));
    const blockType = u32(o);
    const length = u32(o + 4);
    if (length < 12 || length % 4 !== 0)
      throw new CaptureFormatError(`corrupt pcapng: block at byte ${o} has length ${length}`);
    if (o + length > b.length) {
      truncated = true;
      break;
    }
    const body = o + 8;
    if (blockType === 1) {
      interfaces.push({
        linkType: le ? b.readUInt16LE(body) : b.readUInt16BE(body),
        unitsPerSecond: tsResolution(b, body + 8, o + length - 4, le),
      });
    } else if (blockType === 6) {
      const iface = interfaces[u32(body)];
      if (!iface)
        throw new CaptureFormatError(`corrupt pcapng: packet block at byte ${o} names an undeclared interface`);
      const ts = (BigInt(u32(body + 4)) << 32n) | BigInt(u32(body + 8));
      const capLen = u32(body + 12);
      const data = b.subarray(body + 20, Math.min(body + 20 + capLen, o + length - 4));
      frames.push({
        timeNs: (ts * 1_000_000_000n) / iface.unitsPerSecond,
        linkType: iface.linkType,
        data,
        wireLength: u32(body + 16),
      });
    } else if (blockType === 3) {
      // Simple packet block: no timestamp; it gets the previous frame's.
      const iface = interfaces[0];
      if (!iface) throw new CaptureFormatError('corrupt pcapng: simple packet block before any interface');
      const wire = u32(body);
      const data = b.subarray(body + 4, Math.min(body + 4 + wire, o + length - 4));
      frames.push({ timeNs: frames.at(-1)?.timeNs ?? 0n, linkType: iface.linkType, data, wireLength: wire });
    }
    o += length;
  }
  return { format: 'pcapng', frames, truncated };
}

/** The if_tsresol option (code 9) of an interface description block; default microseconds. */
function tsResolution(b: Buffer, start: number, end: number, le: boolean): bigint {
  let o = start;
  while (o + 4 <= end) {
    const code = le ? b.readUInt16LE(o) : b.readUInt16BE(o);
    const len = le ? b.readUInt16LE(o + 2) : b.readUInt16BE(o + 2);
    if (code === 0) break;
    if (code === 9 && len >= 1) {
      const v = b[o + 4];
      return v & 0x80 ? 2n ** BigInt(v & 0x7f) : 10n ** BigInt(v);
    }
    o += 4 + Math.ceil(len / 4) * 4;
  }
  return 1_000_000n;
}
