/**
 * ZRB files: a zone's near/far range images as firmware 3.2 and the vendor SDK store them
 * (docs/zone-monitor.md, ZRB). A 579-byte header, then one u32 per pixel, column after column:
 * far bins in the high 16 bits, near bins in the low 16, a bin being `m_per_zmbin` metres.
 *
 * | offset | bytes | field                                                              |
 * |--------|-------|--------------------------------------------------------------------|
 * | 0      | 7     | version "ZONE03\0"                                                 |
 * | 7      | 32    | SHA-256 of bytes 39..130 (serial to bounds hash)                   |
 * | 39     | 16    | serial number, decimal ASCII, NUL padded                           |
 * | 55     | 4     | n_cols u32                                                         |
 * | 59     | 4     | n_rows u32                                                         |
 * | 63     | 4     | m_per_zmbin f32                                                    |
 * | 67     | 32    | SHA-256 of the STL it was rendered from (zeros: none)              |
 * | 99     | 32    | SHA-256 of the pixel data                                          |
 * | 131    | 192   | beam_to_lidar, lidar_to_sensor, sensor_to_body: 16 f32 each        |
 * | 323    | 256   | valid column mask, bit c of byte c/8: column c has a far range     |
 */
import { createHash } from 'node:crypto';

export const ZRB_HEADER_BYTES = 579;
const VERSION = 'ZONE03';
/** The bin size the SDK renders with (DEFAULT_M_PER_ZMBIN). */
export const DEFAULT_M_PER_ZMBIN = 0.0074927621875;
const HASHED_FROM = 39;
const HASHED_TO = 131;
const MAX_COLUMNS = 2048;

export interface Zrb {
  rows: number;
  columns: number;
  mPerBin: number;
  serialNumber: string;
  /** Indexed `m * rows + p`, millimetres. */
  nearMm: Uint32Array;
  farMm: Uint32Array;
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest();

/** The images of a ZRB file, or why it is not a valid one. */
export function decodeZrb(bytes: Uint8Array): Zrb | { problem: string } {
  if (bytes.length < ZRB_HEADER_BYTES) return { problem: `is ${bytes.length} bytes, shorter than a ZRB header` };
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = new TextDecoder().decode(bytes.subarray(0, 6));
  if (version !== VERSION || bytes[6] !== 0)
    return { problem: `has version ${JSON.stringify(version)}, not ${VERSION}` };
  const columns = view.getUint32(55, true);
  const rows = view.getUint32(59, true);
  const mPerBin = view.getFloat32(63, true);
  if (columns < 1 || columns > MAX_COLUMNS || rows < 1 || rows > 128)
    return { problem: `declares ${rows} rows × ${columns} columns` };
  if (!(mPerBin > 0)) return { problem: 'declares a bin size that is not positive' };
  const data = bytes.subarray(ZRB_HEADER_BYTES);
  if (data.length !== rows * columns * 4)
    return { problem: `holds ${data.length} bytes of pixels; ${rows} × ${columns} pixels take ${rows * columns * 4}` };
  if (!sha256(data).equals(bytes.subarray(99, 131))) return { problem: 'has pixels that do not match its bounds hash' };
  if (!sha256(bytes.subarray(HASHED_FROM, HASHED_TO)).equals(bytes.subarray(7, 39)))
    return { problem: 'has a header that does not match its hash' };
  const mmPerBin = Math.fround(mPerBin) * 1000;
  const nearMm = new Uint32Array(rows * columns);
  const farMm = new Uint32Array(rows * columns);
  for (let i = 0; i < rows * columns; i++) {
    const word = view.getUint32(ZRB_HEADER_BYTES + i * 4, true);
    nearMm[i] = Math.round((word & 0xffff) * mmPerBin);
    farMm[i] = Math.round((word >>> 16) * mmPerBin);
    if (nearMm[i] > farMm[i]) return { problem: `has a pixel (index ${i}) whose near range is beyond its far range` };
  }
  const serialNumber = new TextDecoder().decode(bytes.subarray(39, 55)).replace(/\0+$/, '');
  return { rows, columns, mPerBin, serialNumber, nearMm, farMm };
}

const IDENTITY = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];

export interface ZrbTransforms {
  beamToLidar: readonly number[];
  lidarToSensor: readonly number[];
  sensorToBody?: readonly number[];
}

/** A ZRB file of `zrb` (tests and clients build ZRB zone sets with it). */
export function encodeZrb(zrb: Omit<Zrb, 'mPerBin'> & { mPerBin?: number }, transforms: ZrbTransforms): Uint8Array {
  const mPerBin = Math.fround(zrb.mPerBin ?? DEFAULT_M_PER_ZMBIN);
  const mmPerBin = mPerBin * 1000;
  const bytes = new Uint8Array(ZRB_HEADER_BYTES + zrb.rows * zrb.columns * 4);
  const view = new DataView(bytes.buffer);
  bytes.set(new TextEncoder().encode(VERSION), 0);
  bytes.set(new TextEncoder().encode(zrb.serialNumber.slice(0, 16)), 39);
  view.setUint32(55, zrb.columns, true);
  view.setUint32(59, zrb.rows, true);
  view.setFloat32(63, mPerBin, true);
  // The transforms, column-major as the SDK's matrices lie in memory.
  const matrices = [transforms.beamToLidar, transforms.lidarToSensor, transforms.sensorToBody ?? IDENTITY];
  matrices.forEach((matrix, k) => {
    for (let c = 0; c < 4; c++)
      for (let r = 0; r < 4; r++) view.setFloat32(131 + k * 64 + (c * 4 + r) * 4, matrix[r * 4 + c], true);
  });
  for (let i = 0; i < zrb.rows * zrb.columns; i++) {
    const near = Math.round(zrb.nearMm[i] / mmPerBin);
    const far = Math.round(zrb.farMm[i] / mmPerBin);
    if (near > 0xffff || far > 0xffff) throw new RangeError(`pixel ${i} lies beyond the farthest encodable range`);
    view.setUint32(ZRB_HEADER_BYTES + i * 4, ((far << 16) | near) >>> 0, true);
    if (far > 0) {
      const column = Math.floor(i / zrb.rows);
      bytes[323 + (column >> 3)] |= 1 << (column & 7);
    }
  }
  bytes.set(sha256(bytes.subarray(ZRB_HEADER_BYTES)), 99);
  bytes.set(sha256(bytes.subarray(HASHED_FROM, HASHED_TO)), 7);
  return bytes;
}
