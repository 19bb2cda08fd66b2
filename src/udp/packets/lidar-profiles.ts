/**
 * The lidar packet profiles (docs/udp-packets.md): header kind, channel block size and how one pixel's
 * returns are packed into its channel block.
 */
import type { LidarProfile } from '../../model/index.js';
import type { LidarImage } from '../scene/lidar-image.js';

export const COLUMNS_PER_PACKET = 16;
export const PACKET_HEADER_BYTES = 32;
export const PACKET_FOOTER_BYTES = 32;
export const COLUMN_HEADER_BYTES = 12;

export type HeaderKind = 'STANDARD' | 'FUSA';

export interface ProfileLayout {
  profile: LidarProfile;
  header: HeaderKind;
  bytesPerChannel: number;
  dual: boolean;
  /** The `*_ZONE16` profiles: each pixel carries the bits of the live zones that hold its return (LidarImage.zoneMask). */
  zoneBits: boolean;
  /**
   * Writes the channel blocks of one column: pixels `0 .. img.pixels-1` of image column `m`, the first
   * block at `offset`. The bytes are zero beforehand (reserved fields, flags and WINDOW stay 0).
   */
  writeColumn(bytes: Uint8Array, offset: number, img: LidarImage, m: number): void;
  /**
   * The inverse of writeColumn, for recorded packets (replay): reads the channel blocks at `offset` into
   * image column `m`, in millimetres and full-scale near-IR as the image holds them. Flag bits are dropped.
   */
  readColumn(bytes: Uint8Array, offset: number, img: LidarImage, m: number): void;
}

const RANGE19_MAX = (1 << 19) - 1;
const RANGE15_MAX = (1 << 15) - 1;
/** 19-bit millimetre range; a range the field cannot hold is no return. */
const rng19 = (mm: number) => (mm > RANGE19_MAX ? 0 : mm);
/** 15-bit range in 8 mm steps. */
const rng15 = (mm: number) => {
  const v = Math.round(mm / 8);
  return v > RANGE15_MAX ? 0 : v;
};
// Plain byte stores: Buffer's write methods check bounds on every call, and a frame is ~260 000 blocks.
function put16(b: Uint8Array, o: number, v: number) {
  b[o] = v & 0xff;
  b[o + 1] = v >>> 8;
}
function put24(b: Uint8Array, o: number, v: number) {
  b[o] = v & 0xff;
  b[o + 1] = (v >>> 8) & 0xff;
  b[o + 2] = v >>> 16;
}
/** near_ir / 16 in one byte. */
const nir8 = (nir: number) => Math.min(255, Math.round(nir / 16));
const get16 = (b: Uint8Array, o: number) => b[o] | (b[o + 1] << 8);
const get24 = (b: Uint8Array, o: number) => b[o] | (b[o + 1] << 8) | (b[o + 2] << 16);
/** The 19- and 15-bit range fields without the flag bits above them; 15-bit ranges back in millimetres. */
const mm19 = (b: Uint8Array, o: number) => get24(b, o) & 0x7ffff;
const mm15 = (b: Uint8Array, o: number) => (get16(b, o) & 0x7fff) * 8;

const FW31_LAYOUTS = {
  RNG19_RFL8_SIG16_NIR16: {
    profile: 'RNG19_RFL8_SIG16_NIR16',
    header: 'STANDARD',
    bytesPerChannel: 12,
    dual: false,
    zoneBits: false,
    writeColumn(b, o, img, m) {
      for (let p = 0, i = m * img.pixels; p < img.pixels; p++, i++, o += 12) {
        put24(b, o, rng19(img.range1[i]));
        b[o + 4] = img.reflectivity1[i];
        put16(b, o + 6, img.signal1[i]);
        put16(b, o + 8, img.nearIr[i]);
      }
    },
    readColumn(b, o, img, m) {
      for (let p = 0, i = m * img.pixels; p < img.pixels; p++, i++, o += 12) {
        img.range1[i] = mm19(b, o);
        img.reflectivity1[i] = b[o + 4];
        img.signal1[i] = get16(b, o + 6);
        img.nearIr[i] = get16(b, o + 8);
      }
    },
  },
  RNG19_RFL8_SIG16_NIR16_DUAL: {
    profile: 'RNG19_RFL8_SIG16_NIR16_DUAL',
    header: 'STANDARD',
    bytesPerChannel: 16,
    dual: true,
    zoneBits: false,
    writeColumn(b, o, img, m) {
      for (let p = 0, i = m * img.pixels; p < img.pixels; p++, i++, o += 16) {
        put24(b, o, rng19(img.range1[i]));
        b[o + 3] = img.reflectivity1[i];
        put24(b, o + 4, rng19(img.range2[i]));
        b[o + 7] = img.reflectivity2[i];
        put16(b, o + 8, img.signal1[i]);
        put16(b, o + 10, img.signal2[i]);
        put16(b, o + 12, img.nearIr[i]);
      }
    },
    readColumn(b, o, img, m) {
      for (let p = 0, i = m * img.pixels; p < img.pixels; p++, i++, o += 16) {
        img.range1[i] = mm19(b, o);
        img.reflectivity1[i] = b[o + 3];
        img.range2[i] = mm19(b, o + 4);
        img.reflectivity2[i] = b[o + 7];
        img.signal1[i] = get16(b, o + 8);
        img.signal2[i] = get16(b, o + 10);
        img.nearIr[i] = get16(b, o + 12);
      }
    },
  },
  RNG15_RFL8_NIR8: {
    profile: 'RNG15_RFL8_NIR8',
    header: 'STANDARD',
    bytesPerChannel: 4,
    dual: false,
    zoneBits: false,
    writeColumn(b, o, img, m) {
      for (let p = 0, i = m * img.pixels; p < img.pixels; p++, i++, o += 4) {
        put16(b, o, rng15(img.range1[i]));
        b[o + 2] = img.reflectivity1[i];
        b[o + 3] = nir8(img.nearIr[i]);
      }
    },
    readColumn(b, o, img, m) {
      for (let p = 0, i = m * img.pixels; p < img.pixels; p++, i++, o += 4) {
        img.range1[i] = mm15(b, o);
        img.reflectivity1[i] = b[o + 2];
        img.nearIr[i] = b[o + 3] * 16;
      }
    },
  },
  FUSA_RNG15_RFL8_NIR8_DUAL: {
    profile: 'FUSA_RNG15_RFL8_NIR8_DUAL',
    header: 'FUSA',
    bytesPerChannel: 8,
    dual: true,
    zoneBits: false,
    writeColumn(b, o, img, m) {
      for (let p = 0, i = m * img.pixels; p < img.pixels; p++, i++, o += 8) {
        put16(b, o, rng15(img.range1[i]));
        b[o + 2] = img.reflectivity1[i];
        b[o + 3] = nir8(img.nearIr[i]);
        put16(b, o + 4, rng15(img.range2[i]));
        b[o + 6] = img.reflectivity2[i];
      }
    },
    readColumn(b, o, img, m) {
      for (let p = 0, i = m * img.pixels; p < img.pixels; p++, i++, o += 8) {
        img.range1[i] = mm15(b, o);
        img.reflectivity1[i] = b[o + 2];
        img.nearIr[i] = b[o + 3] * 16;
        img.range2[i] = mm15(b, o + 4);
        img.reflectivity2[i] = b[o + 6];
      }
    },
  },
} satisfies Record<string, ProfileLayout>;

/** The `*_ZONE16` profiles of firmware 3.2 (the vendor SDK's profile tables): the zone mask is a u16 per pixel. */
const ZONE16_LAYOUTS = {
  RNG19_RFL8_SIG16_NIR16_ZONE16: {
    profile: 'RNG19_RFL8_SIG16_NIR16_ZONE16',
    header: 'STANDARD',
    bytesPerChannel: 12,
    dual: false,
    zoneBits: true,
    writeColumn(b, o, img, m) {
      for (let p = 0, i = m * img.pixels; p < img.pixels; p++, i++, o += 12) {
        put24(b, o, rng19(img.range1[i]));
        b[o + 4] = img.reflectivity1[i];
        put16(b, o + 6, img.signal1[i]);
        put16(b, o + 8, img.nearIr[i]);
        put16(b, o + 10, img.zoneMask[i]);
      }
    },
    readColumn(b, o, img, m) {
      for (let p = 0, i = m * img.pixels; p < img.pixels; p++, i++, o += 12) {
        img.range1[i] = mm19(b, o);
        img.reflectivity1[i] = b[o + 4];
        img.signal1[i] = get16(b, o + 6);
        img.nearIr[i] = get16(b, o + 8);
        img.zoneMask[i] = get16(b, o + 10);
      }
    },
  },
  RNG15_RFL8_NIR8_ZONE16: {
    profile: 'RNG15_RFL8_NIR8_ZONE16',
    header: 'STANDARD',
    bytesPerChannel: 8,
    dual: false,
    zoneBits: true,
    writeColumn(b, o, img, m) {
      for (let p = 0, i = m * img.pixels; p < img.pixels; p++, i++, o += 8) {
        put16(b, o, rng15(img.range1[i]));
        b[o + 2] = img.reflectivity1[i];
        b[o + 3] = nir8(img.nearIr[i]);
        put16(b, o + 4, img.zoneMask[i]);
      }
    },
    readColumn(b, o, img, m) {
      for (let p = 0, i = m * img.pixels; p < img.pixels; p++, i++, o += 8) {
        img.range1[i] = mm15(b, o);
        img.reflectivity1[i] = b[o + 2];
        img.nearIr[i] = b[o + 3] * 16;
        img.zoneMask[i] = get16(b, o + 4);
      }
    },
  },
  RNG19_RFL8_SIG16_ZONE16_DUAL: {
    profile: 'RNG19_RFL8_SIG16_ZONE16_DUAL',
    header: 'STANDARD',
    bytesPerChannel: 16,
    dual: true,
    zoneBits: true,
    writeColumn(b, o, img, m) {
      for (let p = 0, i = m * img.pixels; p < img.pixels; p++, i++, o += 16) {
        put24(b, o, rng19(img.range1[i]));
        b[o + 3] = img.reflectivity1[i];
        put24(b, o + 4, rng19(img.range2[i]));
        b[o + 7] = img.reflectivity2[i];
        put16(b, o + 8, img.signal1[i]);
        put16(b, o + 10, img.signal2[i]);
        put16(b, o + 12, img.zoneMask[i]);
      }
    },
    readColumn(b, o, img, m) {
      for (let p = 0, i = m * img.pixels; p < img.pixels; p++, i++, o += 16) {
        img.range1[i] = mm19(b, o);
        img.reflectivity1[i] = b[o + 3];
        img.range2[i] = mm19(b, o + 4);
        img.reflectivity2[i] = b[o + 7];
        img.signal1[i] = get16(b, o + 8);
        img.signal2[i] = get16(b, o + 10);
        img.zoneMask[i] = get16(b, o + 12);
      }
    },
  },
} satisfies Record<string, ProfileLayout>;

export const PROFILE_LAYOUTS: Readonly<Record<LidarProfile, ProfileLayout>> = { ...FW31_LAYOUTS, ...ZONE16_LAYOUTS };

export function columnBytes(layout: ProfileLayout, pixelsPerColumn: number): number {
  return COLUMN_HEADER_BYTES + layout.bytesPerChannel * pixelsPerColumn;
}

/** Datagram size of a lidar packet (docs/udp-packets.md, Lidar packets). */
export function lidarPacketBytes(layout: ProfileLayout, pixelsPerColumn: number): number {
  return PACKET_HEADER_BYTES + COLUMNS_PER_PACKET * columnBytes(layout, pixelsPerColumn) + PACKET_FOOTER_BYTES;
}
