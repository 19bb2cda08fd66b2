/**
 * A profile's column encoder and decoder, made from its field table (src/model/lidar-field-tables.ts) once, at
 * start: each is the source of a plain loop over the column's pixels with one statement per field and byte,
 * compiled with `new Function` as fast-json-stringify compiles a serializer. A loop that looked the fields up
 * per pixel would cost a table walk for each of a frame's ~260 000 blocks; the compiled one is the hand-written
 * loop this file replaced, so a new profile is a table entry, not two more loops.
 */
import type { ChannelBlockTable, ChannelField, FieldSpec } from '../../model/index.js';
import type { LidarImage } from '../scene/lidar-image.js';

/** Writes (reads) the blocks of pixels `0 .. img.pixels-1` of image column `m`, the first block at `offset`. */
export type ColumnCodec = (bytes: Uint8Array, offset: number, img: LidarImage, m: number) => void;

/** The image channel each field carries; FLAGS are always 0 on the unit. */
const IMAGE_CHANNEL: Partial<Record<ChannelField, keyof LidarImage>> = {
  RANGE: 'range1',
  REFLECTIVITY: 'reflectivity1',
  SIGNAL: 'signal1',
  NEAR_IR: 'nearIr',
  RANGE2: 'range2',
  REFLECTIVITY2: 'reflectivity2',
  SIGNAL2: 'signal2',
  ZONE_MASK: 'zoneMask',
  WINDOW: 'window',
};

/** A range the field cannot hold is no return (0); any other value saturates. */
const isRange = (field: ChannelField) => field === 'RANGE' || field === 'RANGE2';

interface CodedField {
  spec: FieldSpec;
  channel: keyof LidarImage;
  /** Byte of the block the field starts at (fields the unit fills start on a byte). */
  byte: number;
  byteCount: number;
  max: number;
}

function codedFields(block: ChannelBlockTable): CodedField[] {
  const out: CodedField[] = [];
  for (const spec of block.fields) {
    const channel = IMAGE_CHANNEL[spec.field];
    if (!channel) continue;
    if (spec.bit % 8 !== 0 || spec.bits > 24)
      throw new Error(
        `field ${spec.field} at bit ${spec.bit} (${spec.bits} bits): only byte-aligned fields up to 24 bits are coded`,
      );
    out.push({ spec, channel, byte: spec.bit / 8, byteCount: Math.ceil(spec.bits / 8), max: 2 ** spec.bits - 1 });
  }
  return out;
}

function compile(block: ChannelBlockTable, body: (f: CodedField, v: string) => string[]): ColumnCodec {
  const fields = codedFields(block);
  const channels = [...new Set(fields.map((f) => f.channel))];
  const source = [
    ...channels.map((c) => `const ${c} = img.${c};`),
    `for (let p = 0, i = m * img.pixels, n = img.pixels; p < n; p++, i++, o += ${block.bytes}) {`,
    ...fields.flatMap((f, k) => body(f, `v${k}`)),
    '}',
  ].join('\n');
  return new Function('b', 'o', 'img', 'm', source) as ColumnCodec;
}

/** The encoder: the bytes are zero beforehand, so flags and fields without an image channel stay 0. */
export function compileColumnWriter(block: ChannelBlockTable): ColumnCodec {
  return compile(block, (f, v) => {
    const { upshift, field } = f.spec;
    const value = upshift ? `Math.round(${f.channel}[i] / ${2 ** upshift})` : `${f.channel}[i]`;
    const limit = isRange(field) ? `if (${v} > ${f.max}) ${v} = 0;` : `if (${v} > ${f.max}) ${v} = ${f.max};`;
    const stores = Array.from({ length: f.byteCount }, (_, k) => `b[o + ${f.byte + k}] = (${v} >>> ${8 * k}) & 255;`);
    return [`let ${v} = ${value};`, limit, ...stores];
  });
}

/** The decoder: values back in the image's units (millimetres, full-scale near-IR); flag bits dropped. */
export function compileColumnReader(block: ChannelBlockTable): ColumnCodec {
  return compile(block, (f) => {
    const bytes = Array.from({ length: f.byteCount }, (_, k) =>
      k ? `(b[o + ${f.byte + k}] << ${8 * k})` : `b[o + ${f.byte}]`,
    );
    const mask = f.spec.bits % 8 ? ` & ${f.max}` : '';
    const raw = `((${bytes.join(' | ')})${mask})`;
    return [`${f.channel}[i] = ${f.spec.upshift ? `${raw} * ${2 ** f.spec.upshift}` : raw};`];
  });
}
