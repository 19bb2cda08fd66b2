/** Decodes ACCEL32_GYRO32_NMEA IMU packets (firmware 3.2), from docs/udp-packets.md alone. */
import { crc64xz } from './crc64-xz.js';

export interface DecodedImuMeasurement {
  timestamp: bigint;
  measurementId: number;
  status: number;
  /** m/s² */
  accel: [number, number, number];
  /** rad/s */
  gyro: [number, number, number];
}

export interface DecodedImuNmeaPacket {
  packetType: number;
  frameId: number;
  initId: number;
  serial: bigint;
  alertFlags: number;
  /** Header bytes 13-15 and 16-31 are zero (STANDARD). */
  reservedZero: boolean;
  nmeaTimestamp: bigint;
  /** The sentence without its NUL padding ('' when none). */
  nmea: string;
  /** The NMEA block's bytes after the sentence are all zero. */
  nmeaPaddingZero: boolean;
  measurements: DecodedImuMeasurement[];
  /** STANDARD: the footer's first 24 bytes are zero and its last 8 hold the CRC-64/XZ of the bytes before. */
  footerOk: boolean;
}

export const imuNmeaPacketSize = (measurements: number) => 32 + 100 + 36 * measurements + 32;

/** `header`: the packet header the metadata's header_type names (the SDK's layout of each). */
export function decodeImuNmeaPacket(b: Buffer, header: 'STANDARD' | 'FUSA' = 'STANDARD'): DecodedImuNmeaPacket {
  const measurements = (b.length - 164) / 36;
  if (!Number.isInteger(measurements) || measurements < 1)
    throw new Error(`no ACCEL32_GYRO32_NMEA packet: ${b.length} bytes`);
  const sentenceBytes = b.subarray(40, 132);
  const end = sentenceBytes.indexOf(0);
  const nmea = sentenceBytes.subarray(0, end < 0 ? 92 : end).toString('latin1');
  const fusa = header === 'FUSA';
  const out: DecodedImuNmeaPacket = {
    packetType: fusa ? b[0] : b.readUInt16LE(0),
    frameId: fusa ? b.readUInt32LE(4) : b.readUInt16LE(2),
    initId: fusa ? b.readUIntLE(1, 3) : b.readUIntLE(4, 3),
    serial: fusa
      ? BigInt(b.readUInt32LE(11)) + (BigInt(b[15]) << 32n)
      : BigInt(b.readUInt32LE(7)) + (BigInt(b[11]) << 32n),
    alertFlags: fusa ? b[8] : b[12],
    reservedZero: fusa
      ? b[9] === 0 && b[10] === 0 && b.subarray(16, 32).every((x) => x === 0)
      : b.subarray(13, 32).every((x) => x === 0),
    nmeaTimestamp: b.readBigUInt64LE(32),
    nmea,
    nmeaPaddingZero: sentenceBytes.subarray(nmea.length).every((x) => x === 0),
    measurements: [],
    // STANDARD: the CRC-64 in the last 8 bytes; FUSA: no CRC, the footer is all zero.
    footerOk: fusa
      ? b.subarray(b.length - 32).every((x) => x === 0)
      : b.subarray(b.length - 32, b.length - 8).every((x) => x === 0) &&
        crc64xz(b, 0, b.length - 8) === b.readBigUInt64LE(b.length - 8),
  };
  for (let k = 0; k < measurements; k++) {
    const o = 132 + 36 * k;
    out.measurements.push({
      timestamp: b.readBigUInt64LE(o),
      measurementId: b.readUInt16LE(o + 8),
      status: b.readUInt16LE(o + 10),
      accel: [b.readFloatLE(o + 12), b.readFloatLE(o + 16), b.readFloatLE(o + 20)],
      gyro: [b.readFloatLE(o + 24), b.readFloatLE(o + 28), b.readFloatLE(o + 32)],
    });
  }
  return out;
}

/** Whether an NMEA sentence's checksum (two hex digits after `*`) is the XOR of the characters between `$` and `*`. */
export function nmeaChecksumValid(sentence: string): boolean {
  const match = /^\$([^*]*)\*([0-9A-F]{2})$/.exec(sentence);
  if (!match) return false;
  let sum = 0;
  for (const ch of match[1]) sum ^= ch.charCodeAt(0);
  return sum === Number.parseInt(match[2], 16);
}
