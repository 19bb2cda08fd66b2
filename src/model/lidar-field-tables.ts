/**
 * The channel block of every lidar profile as a table of fields (docs/udp-packets.md, Columns): where each
 * field sits in one pixel's block (first bit, width in bits) and how many low bits of the value the field
 * drops (`upshift`: the low-bandwidth profiles carry range / 8 and near-IR / 16). The vendor SDK describes
 * its profiles the same way (offset, width, shift per channel field), so a layout here reads as the SDK's.
 * The packet encoder and decoders (src/udp/packets/field-codec.ts), the validator and the layout table of
 * docs/udp-packets.md are made from these entries: a profile is one entry. Pure data.
 */
import type { LidarProfile } from './sensor-config.js';

/** The channel fields a block can hold (the SDK's ChanField names). */
export type ChannelField =
  | 'RANGE'
  | 'FLAGS'
  | 'REFLECTIVITY'
  | 'SIGNAL'
  | 'NEAR_IR'
  | 'RANGE2'
  | 'FLAGS2'
  | 'REFLECTIVITY2'
  | 'SIGNAL2'
  | 'ZONE_MASK'
  | 'WINDOW';

export interface FieldSpec {
  field: ChannelField;
  /** First bit of the field in the block, counted little-endian (bit k is bit k % 8 of byte k / 8). */
  bit: number;
  bits: number;
  /** The field holds `value >> upshift` (rounded when encoded); 0 when it holds the value itself. */
  upshift: number;
}

export interface ChannelBlockTable {
  /** Bytes of one pixel's block. */
  bytes: number;
  fields: readonly FieldSpec[];
}

const f = (field: ChannelField, bit: number, bits: number, upshift = 0): FieldSpec => ({ field, bit, bits, upshift });

// Runs of fields several blocks share, as in the firmware (FUSA_RNG15_RFL8_NIR8_DUAL is the low-bandwidth dual block).
const RANGE19 = [f('RANGE', 0, 19), f('FLAGS', 19, 5)];
/** The dual-return blocks' first 12 bytes: both returns' range, flags and reflectivity, then both signals. */
const TWO_RETURNS19 = [
  ...RANGE19,
  f('REFLECTIVITY', 24, 8),
  f('RANGE2', 32, 19),
  f('FLAGS2', 51, 5),
  f('REFLECTIVITY2', 56, 8),
  f('SIGNAL', 64, 16),
  f('SIGNAL2', 80, 16),
];
/** The low-bandwidth blocks' first 3 bytes: range / 8, flag, reflectivity. */
const RETURN15 = [f('RANGE', 0, 15, 3), f('FLAGS', 15, 1), f('REFLECTIVITY', 16, 8)];
/** The low-bandwidth blocks' first 4 bytes: RETURN15, then near-IR / 16. */
const RETURN15_NIR8 = [...RETURN15, f('NEAR_IR', 24, 8, 4)];
/** The low-bandwidth dual-return block: FUSA_RNG15_RFL8_NIR8_DUAL's and RNG15_RFL8_NIR8_DUAL's. */
const LOW_BANDWIDTH_DUAL: ChannelBlockTable = {
  bytes: 8,
  fields: [...RETURN15_NIR8, f('RANGE2', 32, 15, 3), f('FLAGS2', 47, 1), f('REFLECTIVITY2', 48, 8), f('WINDOW', 56, 8)],
};

export const CHANNEL_BLOCKS: Readonly<Record<LidarProfile, ChannelBlockTable>> = {
  RNG19_RFL8_SIG16_NIR16: {
    bytes: 12,
    fields: [...RANGE19, f('REFLECTIVITY', 32, 8), f('SIGNAL', 48, 16), f('NEAR_IR', 64, 16), f('WINDOW', 88, 8)],
  },
  RNG19_RFL8_SIG16_NIR16_DUAL: { bytes: 16, fields: [...TWO_RETURNS19, f('NEAR_IR', 96, 16), f('WINDOW', 120, 8)] },
  RNG15_RFL8_NIR8: { bytes: 4, fields: RETURN15_NIR8 },
  FUSA_RNG15_RFL8_NIR8_DUAL: LOW_BANDWIDTH_DUAL,
  RNG19_RFL8_SIG16_NIR16_ZONE16: {
    bytes: 12,
    fields: [
      ...RANGE19,
      f('REFLECTIVITY', 32, 8),
      f('WINDOW', 40, 8),
      f('SIGNAL', 48, 16),
      f('NEAR_IR', 64, 16),
      f('ZONE_MASK', 80, 16),
    ],
  },
  RNG15_RFL8_NIR8_ZONE16: { bytes: 8, fields: [...RETURN15_NIR8, f('ZONE_MASK', 32, 16), f('WINDOW', 48, 8)] },
  RNG19_RFL8_SIG16_ZONE16_DUAL: { bytes: 16, fields: [...TWO_RETURNS19, f('ZONE_MASK', 96, 16), f('WINDOW', 120, 8)] },
  RNG15_RFL8_NIR8_DUAL: LOW_BANDWIDTH_DUAL,
  RNG15_RFL8_WIN8: { bytes: 4, fields: [...RETURN15, f('WINDOW', 24, 8)] },
};

/**
 * LEGACY (firmware 2.x, replay only): RNG19_RFL8_SIG16_NIR16's block with a 20-bit range and the flags at
 * bits 28..31.
 */
export const LEGACY_CHANNEL_BLOCK: ChannelBlockTable = {
  bytes: 12,
  fields: [f('RANGE', 0, 20), f('FLAGS', 28, 4), f('REFLECTIVITY', 32, 8), f('SIGNAL', 48, 16), f('NEAR_IR', 64, 16)],
};

export const hasField = (block: ChannelBlockTable, field: ChannelField) => block.fields.some((x) => x.field === field);

/** What each field holds, for the docs' layout table. */
const FIELD_MEANING: Readonly<Record<ChannelField, string>> = {
  RANGE: 'range, mm',
  FLAGS: 'flags',
  REFLECTIVITY: 'reflectivity',
  SIGNAL: 'signal, photons',
  NEAR_IR: 'near-IR, photons',
  RANGE2: 'second range, mm',
  FLAGS2: 'second flags',
  REFLECTIVITY2: 'second reflectivity',
  SIGNAL2: 'second signal',
  ZONE_MASK: 'zone mask',
  WINDOW: 'window',
};

function fieldText({ field, bit, bits, upshift }: FieldSpec): string {
  const where =
    bit % 8 === 0 && bits % 8 === 0
      ? bits === 8
        ? `byte ${bit / 8}`
        : `u${bits} at byte ${bit / 8}`
      : bits === 1
        ? `bit ${bit}`
        : `bits ${bit}..${bit + bits - 1}`;
  return `${FIELD_MEANING[field]}${upshift ? ` / ${2 ** upshift}` : ''}: ${where}`;
}

/** The "One block" table of docs/udp-packets.md (between its `channel-blocks` markers). */
export function channelBlockTableMarkdown(): string {
  const rows = Object.entries(CHANNEL_BLOCKS).map(
    ([profile, block]) => `| \`${profile}\` | ${block.bytes} | ${block.fields.map(fieldText).join('; ')} |`,
  );
  return ['| Profile | Block bytes | Fields (bits little-endian within the block) |', '|---|---|---|', ...rows].join(
    '\n',
  );
}
