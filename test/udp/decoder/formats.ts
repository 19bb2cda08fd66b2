/** Packet sizes and channel layouts, as docs/udp-packets.md tabulates them. */

export type Profile =
  | 'RNG19_RFL8_SIG16_NIR16'
  | 'RNG19_RFL8_SIG16_NIR16_DUAL'
  | 'RNG15_RFL8_NIR8'
  | 'FUSA_RNG15_RFL8_NIR8_DUAL'
  | 'RNG19_RFL8_SIG16_NIR16_ZONE16'
  | 'RNG15_RFL8_NIR8_ZONE16'
  | 'RNG19_RFL8_SIG16_ZONE16_DUAL'
  | 'RNG15_RFL8_NIR8_DUAL'
  | 'RNG15_RFL8_WIN8';

export const PROFILES: readonly Profile[] = [
  'RNG19_RFL8_SIG16_NIR16',
  'RNG19_RFL8_SIG16_NIR16_DUAL',
  'RNG15_RFL8_NIR8',
  'FUSA_RNG15_RFL8_NIR8_DUAL',
  'RNG19_RFL8_SIG16_NIR16_ZONE16',
  'RNG15_RFL8_NIR8_ZONE16',
  'RNG19_RFL8_SIG16_ZONE16_DUAL',
  'RNG15_RFL8_NIR8_DUAL',
  'RNG15_RFL8_WIN8',
];

export const BYTES_PER_CHANNEL: Record<Profile, number> = {
  RNG19_RFL8_SIG16_NIR16: 12,
  RNG19_RFL8_SIG16_NIR16_DUAL: 16,
  RNG15_RFL8_NIR8: 4,
  FUSA_RNG15_RFL8_NIR8_DUAL: 8,
  RNG19_RFL8_SIG16_NIR16_ZONE16: 12,
  RNG15_RFL8_NIR8_ZONE16: 8,
  RNG19_RFL8_SIG16_ZONE16_DUAL: 16,
  RNG15_RFL8_NIR8_DUAL: 8,
  RNG15_RFL8_WIN8: 4,
};

/** The table "Sizes (columns_per_packet = 16)", verbatim. */
export const PACKET_SIZES: Record<Profile, Record<16 | 32 | 64 | 128, number>> = {
  RNG19_RFL8_SIG16_NIR16: { 16: 3328, 32: 6400, 64: 12544, 128: 24832 },
  RNG19_RFL8_SIG16_NIR16_DUAL: { 16: 4352, 32: 8448, 64: 16640, 128: 33024 },
  RNG15_RFL8_NIR8: { 16: 1280, 32: 2304, 64: 4352, 128: 8448 },
  FUSA_RNG15_RFL8_NIR8_DUAL: { 16: 2304, 32: 4352, 64: 8448, 128: 16640 },
  RNG19_RFL8_SIG16_NIR16_ZONE16: { 16: 3328, 32: 6400, 64: 12544, 128: 24832 },
  RNG15_RFL8_NIR8_ZONE16: { 16: 2304, 32: 4352, 64: 8448, 128: 16640 },
  RNG19_RFL8_SIG16_ZONE16_DUAL: { 16: 4352, 32: 8448, 64: 16640, 128: 33024 },
  RNG15_RFL8_NIR8_DUAL: { 16: 2304, 32: 4352, 64: 8448, 128: 16640 },
  RNG15_RFL8_WIN8: { 16: 1280, 32: 2304, 64: 4352, 128: 8448 },
};

export const isFusa = (p: Profile) => p === 'FUSA_RNG15_RFL8_NIR8_DUAL';
export const isDual = (p: Profile) => p.endsWith('_DUAL');
export const hasZoneMask = (p: Profile) => p.includes('ZONE16');
export const hasNearIr = (p: Profile) => p.includes('NIR');

export const COLUMNS_PER_PACKET = 16;
export const IMU_PACKET_SIZE = 48;

export function packetSize(profile: Profile, pixels: number): number {
  return 32 + COLUMNS_PER_PACKET * (12 + BYTES_PER_CHANNEL[profile] * pixels) + 32;
}
