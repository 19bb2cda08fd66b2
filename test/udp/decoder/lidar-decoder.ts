/**
 * Decodes lidar packets the way a client does, from docs/udp-packets.md alone.
 */
import { crc64xz } from './crc64-xz.js';
import { BYTES_PER_CHANNEL, COLUMNS_PER_PACKET, isFusa, packetSize, type Profile } from './formats.js';

export interface DecodedPixel {
  range: number;
  reflectivity: number;
  signal: number;
  nearIr: number;
  range2: number;
  reflectivity2: number;
  signal2: number;
  window: number;
  zoneMask: number;
  flags: number;
}

export interface DecodedColumn {
  timestamp: bigint;
  measurementId: number;
  status: number;
  pixels: DecodedPixel[];
}

export interface DecodedLidarPacket {
  packetType: number;
  frameId: number;
  initId: number;
  serial: bigint;
  alertFlags: number;
  countdownThermalShutdown: number;
  countdownShotLimiting: number;
  thermalShutdown: number;
  shotLimiting: number;
  /** Every reserved header byte is zero. */
  reservedZero: boolean;
  /** STANDARD: CRC in the footer matches; FUSA: footer all zero. */
  footerOk: boolean;
  columns: DecodedColumn[];
}

const le = (b: Buffer, off: number, n: number) => {
  let v = 0n;
  for (let i = n - 1; i >= 0; i--) v = (v << 8n) | BigInt(b[off + i]);
  return v;
};
const bits = (b: Buffer, off: number, from: number, to: number) => {
  // Little-endian bit order across the block: bit k is bit (k % 8) of byte (k / 8).
  let v = 0;
  for (let k = to; k >= from; k--) v = v * 2 + ((b[off + (k >> 3)] >> (k & 7)) & 1);
  return v;
};
const allZero = (b: Buffer, from: number, to: number) => b.subarray(from, to).every((x) => x === 0);

function decodePixel(profile: Profile, b: Buffer, o: number): DecodedPixel {
  const px: DecodedPixel = {
    range: 0,
    reflectivity: 0,
    signal: 0,
    nearIr: 0,
    range2: 0,
    reflectivity2: 0,
    signal2: 0,
    window: 0,
    zoneMask: 0,
    flags: 0,
  };
  // Runs of fields several profiles share (docs/udp-packets.md, Columns).
  const range19 = () => {
    px.range = bits(b, o, 0, 18);
    px.flags = bits(b, o, 19, 23);
  };
  const twoReturns19 = () => {
    range19();
    px.reflectivity = b[o + 3];
    px.range2 = bits(b, o, 32, 50);
    px.reflectivity2 = b[o + 7];
    px.signal = b.readUInt16LE(o + 8);
    px.signal2 = b.readUInt16LE(o + 10);
    px.window = b[o + 15];
  };
  const return15Nir8 = () => {
    px.range = bits(b, o, 0, 14) * 8;
    px.flags = bits(b, o, 15, 15);
    px.reflectivity = b[o + 2];
    px.nearIr = b[o + 3] * 16;
  };
  switch (profile) {
    case 'RNG19_RFL8_SIG16_NIR16':
      range19();
      px.reflectivity = b[o + 4];
      px.signal = b.readUInt16LE(o + 6);
      px.nearIr = b.readUInt16LE(o + 8);
      px.window = b[o + 11];
      break;
    case 'RNG19_RFL8_SIG16_NIR16_DUAL':
      twoReturns19();
      px.nearIr = b.readUInt16LE(o + 12);
      break;
    case 'RNG15_RFL8_NIR8':
      return15Nir8();
      break;
    case 'FUSA_RNG15_RFL8_NIR8_DUAL':
    case 'RNG15_RFL8_NIR8_DUAL':
      return15Nir8();
      px.range2 = bits(b, o, 32, 46) * 8;
      px.reflectivity2 = b[o + 6];
      px.window = b[o + 7];
      break;
    case 'RNG19_RFL8_SIG16_NIR16_ZONE16':
      range19();
      px.reflectivity = b[o + 4];
      px.window = b[o + 5];
      px.signal = b.readUInt16LE(o + 6);
      px.nearIr = b.readUInt16LE(o + 8);
      px.zoneMask = b.readUInt16LE(o + 10);
      break;
    case 'RNG15_RFL8_NIR8_ZONE16':
      return15Nir8();
      px.zoneMask = b.readUInt16LE(o + 4);
      px.window = b[o + 6];
      break;
    case 'RNG19_RFL8_SIG16_ZONE16_DUAL':
      twoReturns19();
      px.zoneMask = b.readUInt16LE(o + 12);
      break;
    case 'RNG15_RFL8_WIN8':
      px.range = bits(b, o, 0, 14) * 8;
      px.flags = bits(b, o, 15, 15);
      px.reflectivity = b[o + 2];
      px.window = b[o + 3];
      break;
  }
  return px;
}

/**
 * The init_id of a lidar packet, read without decoding the rest (tests that only tell runs apart): u24 at
 * byte 4 of the header, at byte 1 in a FuSa profile's.
 */
export const lidarInitId = (packet: Buffer, profile?: Profile): number =>
  packet.readUIntLE(profile && isFusa(profile) ? 1 : 4, 3);

/**
 * Throws when the datagram does not have the profile's exact size. `header`: the metadata's header_type
 * (firmware 3.2 lets every profile carry the FUSA header); by default the profile's own.
 */
export function decodeLidarPacket(
  b: Buffer,
  profile: Profile,
  pixels: number,
  header: 'STANDARD' | 'FUSA' = isFusa(profile) ? 'FUSA' : 'STANDARD',
): DecodedLidarPacket {
  const expected = packetSize(profile, pixels);
  if (b.length !== expected)
    throw new Error(`packet of ${b.length} bytes, ${profile} with ${pixels} pixels needs ${expected}`);
  const fusa = header === 'FUSA';
  const p: DecodedLidarPacket = fusa
    ? {
        packetType: b[0],
        initId: Number(le(b, 1, 3)),
        frameId: b.readUInt32LE(4),
        alertFlags: b[8],
        serial: le(b, 11, 5),
        countdownThermalShutdown: b[16],
        countdownShotLimiting: b[17],
        thermalShutdown: b[18] & 0xf,
        shotLimiting: b[19] & 0xf,
        reservedZero: allZero(b, 9, 11) && allZero(b, 20, 32),
        footerOk: allZero(b, b.length - 32, b.length),
        columns: [],
      }
    : {
        packetType: b.readUInt16LE(0),
        frameId: b.readUInt16LE(2),
        initId: Number(le(b, 4, 3)),
        serial: le(b, 7, 5),
        alertFlags: b[12],
        countdownThermalShutdown: b[16],
        countdownShotLimiting: b[17],
        thermalShutdown: b[18] & 0xf,
        shotLimiting: b[19] & 0xf,
        reservedZero: allZero(b, 13, 16) && allZero(b, 20, 32),
        footerOk: allZero(b, b.length - 32, b.length - 8) && crc64xz(b, 0, b.length - 8) === le(b, b.length - 8, 8),
        columns: [],
      };
  const bpc = BYTES_PER_CHANNEL[profile];
  const colSize = 12 + bpc * pixels;
  for (let i = 0; i < COLUMNS_PER_PACKET; i++) {
    const c = 32 + i * colSize;
    const column: DecodedColumn = {
      timestamp: b.readBigUInt64LE(c),
      measurementId: b.readUInt16LE(c + 8),
      status: b.readUInt16LE(c + 10),
      pixels: [],
    };
    for (let px = 0; px < pixels; px++) column.pixels.push(decodePixel(profile, b, c + 12 + px * bpc));
    p.columns.push(column);
  }
  return p;
}
