/**
 * The firmware image format: a self-describing header, then an opaque payload.
 *
 * All integers are big-endian. Offsets in bytes:
 *
 * | offset    | size | field                                                                   |
 * |-----------|------|-------------------------------------------------------------------------|
 * | 0         | 8    | magic `LSFWIMG\n` (4C 53 46 57 49 4D 47 0A)                               |
 * | 8         | 2    | format version: 1 unsigned, 2 signed                                    |
 * | 10        | 2    | header length H, in bytes, from offset 0 up to and including the digest |
 * | 12        | 8    | payload length P (at most 2^53 - 1)                                     |
 * | 20        | 32   | SHA-256 of the payload                                                  |
 * | 52        | 2    | image_rev length R (1..128)                                             |
 * | 54        | R    | image_rev, ASCII, `ousteros-image-prod-<machine>-v<X.Y.Z>+<YYYYMMDDhhmmss>` |
 * | 54+R      | 2    | manifest length M (0..2048)                                             |
 * | 56+R      | M    | manifest: UTF-8 `key=value` lines separated by `\n`                     |
 * | 56+R+M    | 32   | SHA-256 of header bytes [0, 56+R+M)                                     |
 * | H=88+R+M  | P    | payload (version 1)                                                     |
 *
 * Version 2 (signed) has the same header and puts a signature block between header and payload
 * (src/model/image-signature.ts): at H a 2-byte length S, then S bytes of signatures (key fingerprint
 * and Ed25519 signature over the header, 96 bytes each), then the payload at H + 2 + S. The header
 * carries the payload digest, so a signature over the header covers every installed byte. Unsigned
 * images stay version 1, byte for byte what they were, so existing images and units keep working.
 *
 * A version 1 image is exactly H + P bytes, a version 2 image H + 2 + S + P. The trailing `\n` of the magic catches text-mode transfers that
 * rewrite line endings; the header digest catches a corrupt image_rev or manifest, which the payload
 * digest does not cover. Pure functions; no I/O. The streaming verifier is image-verifier.ts.
 */
import { createHash, type KeyObject } from 'node:crypto';
import { parseImageRev } from './image-rev.js';
import {
  encodeSignatureBlock,
  parseSignatureEntries,
  signImageHeader,
  type ImageSignature,
} from './image-signature.js';

export const IMAGE_MAGIC = Buffer.from('LSFWIMG\n', 'latin1');
export const IMAGE_FORMAT_VERSION = 1;
/** Version 2: as version 1, with a signature block between header and payload. */
export const SIGNED_IMAGE_FORMAT_VERSION = 2;
export const SIGNATURE_LENGTH_FIELD = 2;
/** Bytes needed to know the header length: magic, version, header length. */
export const IMAGE_PREAMBLE_LENGTH = 12;
export const MAX_IMAGE_REV_LENGTH = 128;
export const MAX_MANIFEST_LENGTH = 2048;
const DIGEST_LENGTH = 32;
const FIXED_FIELDS_LENGTH = 56 + DIGEST_LENGTH; // everything but image_rev and manifest
export const MAX_HEADER_LENGTH = FIXED_FIELDS_LENGTH + MAX_IMAGE_REV_LENGTH + MAX_MANIFEST_LENGTH;

/** Manifest keys that mean something; others are carried along untouched. */
export const MANIFEST_KEYS = {
  /** Simulation only: `fail` makes the simulated unit fail every boot of this image (rollback tests). */
  simBoot: 'sim.boot',
} as const;

export interface ImageHeader {
  formatVersion: number;
  headerLength: number;
  payloadLength: number;
  /** Lower-case hex. */
  payloadSha256: string;
  imageRev: string;
  manifest: Readonly<Record<string, string>>;
  /** Where the payload starts: headerLength, plus the signature block in a version 2 image. */
  payloadOffset: number;
  /** The signatures a version 2 image carries (not yet checked against any key). */
  signatures: readonly ImageSignature[];
}

/**
 * What a signature check looks at, before the header is parsed: the header bytes exactly as they
 * arrived (so a changed byte anywhere in them fails the signature, not some later field check),
 * the signatures, and a malformed signature block's problem.
 */
export interface ArrivedHeader {
  formatVersion: number;
  header: Buffer;
  signatures: readonly ImageSignature[];
  signatureProblem?: string;
  /** image_rev as the (not yet verified) header states it, for naming a refused image. */
  statedImageRev: string;
}

export type ImageProblem =
  | 'foreign' // not an image of this format at all
  | 'unsupported-version'
  | 'corrupt-header'
  | 'corrupt-signature-block'
  | 'invalid-image-rev'
  | 'invalid-manifest'
  | 'truncated'
  | 'corrupt-payload'
  | 'trailing-data';

export class ImageFormatError extends Error {
  constructor(
    readonly problem: ImageProblem,
    detail: string,
  ) {
    super(detail);
  }
}

const MANIFEST_KEY = /^[a-z0-9][a-z0-9_.-]{0,63}$/;
// Printable, no line breaks: one line per entry.
const MANIFEST_VALUE = /^[^\u0000-\u001f\u007f]{0,255}$/u;

export function encodeManifest(manifest: Readonly<Record<string, string>>): Buffer {
  const lines = Object.entries(manifest).map(([key, value]) => {
    if (!MANIFEST_KEY.test(key))
      throw new ImageFormatError('invalid-manifest', `manifest key "${key}" must match ${MANIFEST_KEY}`);
    if (!MANIFEST_VALUE.test(value))
      throw new ImageFormatError(
        'invalid-manifest',
        `manifest value of "${key}" must be at most 255 printable characters`,
      );
    return `${key}=${value}`;
  });
  const bytes = Buffer.from(lines.join('\n'), 'utf8');
  if (bytes.length > MAX_MANIFEST_LENGTH)
    throw new ImageFormatError('invalid-manifest', `manifest is ${bytes.length} bytes; at most ${MAX_MANIFEST_LENGTH}`);
  return bytes;
}

function decodeManifest(bytes: Buffer): Record<string, string> {
  const manifest: Record<string, string> = {};
  if (bytes.length === 0) return manifest;
  const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  for (const line of text.split('\n')) {
    const eq = line.indexOf('=');
    const key = eq < 0 ? line : line.slice(0, eq);
    const value = eq < 0 ? '' : line.slice(eq + 1);
    if (eq < 0 || !MANIFEST_KEY.test(key) || !MANIFEST_VALUE.test(value))
      throw new ImageFormatError('invalid-manifest', `manifest line "${line.slice(0, 80)}" is not key=value`);
    if (Object.hasOwn(manifest, key))
      throw new ImageFormatError('invalid-manifest', `manifest key "${key}" appears twice`);
    manifest[key] = value;
  }
  return manifest;
}

export interface HeaderFields {
  imageRev: string;
  payloadLength: number;
  /** Hex or raw digest of the payload. */
  payloadSha256: string | Buffer;
  manifest?: Readonly<Record<string, string>>;
}

/** The header bytes of an image with these fields. Throws ImageFormatError for values the format cannot hold. */
export function encodeImageHeader(fields: HeaderFields, formatVersion = IMAGE_FORMAT_VERSION): Buffer {
  const revProblem = parseImageRev(fields.imageRev).problem;
  if (revProblem) throw new ImageFormatError('invalid-image-rev', revProblem);
  if (!Number.isSafeInteger(fields.payloadLength) || fields.payloadLength < 0)
    throw new RangeError(`payload length ${fields.payloadLength} is not a safe non-negative integer`);
  const digest =
    typeof fields.payloadSha256 === 'string' ? Buffer.from(fields.payloadSha256, 'hex') : fields.payloadSha256;
  if (digest.length !== DIGEST_LENGTH) throw new RangeError('payload SHA-256 must be 32 bytes');
  const rev = Buffer.from(fields.imageRev, 'latin1');
  const manifest = encodeManifest(fields.manifest ?? {});
  const headerLength = FIXED_FIELDS_LENGTH + rev.length + manifest.length;
  const header = Buffer.alloc(headerLength);
  IMAGE_MAGIC.copy(header, 0);
  header.writeUInt16BE(formatVersion, 8);
  header.writeUInt16BE(headerLength, 10);
  header.writeBigUInt64BE(BigInt(fields.payloadLength), 12);
  digest.copy(header, 20);
  header.writeUInt16BE(rev.length, 52);
  rev.copy(header, 54);
  header.writeUInt16BE(manifest.length, 54 + rev.length);
  manifest.copy(header, 56 + rev.length);
  const bodyEnd = headerLength - DIGEST_LENGTH;
  createHash('sha256').update(header.subarray(0, bodyEnd)).digest().copy(header, bodyEnd);
  return header;
}

/**
 * Everything before the payload: the version 1 header, or with signing keys the version 2 header and
 * its signature block, one signature per key.
 */
export function encodeImagePrefix(fields: HeaderFields, signingKeys: readonly KeyObject[] = []): Buffer {
  if (signingKeys.length === 0) return encodeImageHeader(fields);
  const header = encodeImageHeader(fields, SIGNED_IMAGE_FORMAT_VERSION);
  const signatures = signingKeys.map((key) => signImageHeader(header, key));
  return Buffer.concat([header, encodeSignatureBlock(signatures)]);
}

/** A whole image in memory: for small payloads (tests, the simulated factory image). Signed when keys are given. */
export function buildImage(
  imageRev: string,
  payload: Buffer,
  manifest: Readonly<Record<string, string>> = {},
  signingKeys: readonly KeyObject[] = [],
): Buffer {
  const payloadSha256 = createHash('sha256').update(payload).digest();
  return Buffer.concat([
    encodeImagePrefix({ imageRev, payloadLength: payload.length, payloadSha256, manifest }, signingKeys),
    payload,
  ]);
}

/**
 * Checks the first bytes of an upload, however few have arrived, so a foreign file is refused
 * after its first chunk instead of after the whole body. Returns the header length once the
 * preamble is complete.
 */
export function checkPreamble(start: Buffer): number | undefined {
  const magicBytes = Math.min(start.length, IMAGE_MAGIC.length);
  if (!start.subarray(0, magicBytes).equals(IMAGE_MAGIC.subarray(0, magicBytes))) {
    throw new ImageFormatError(
      'foreign',
      'not a firmware image: the file does not start with the image magic "LSFWIMG\\n"',
    );
  }
  if (start.length < IMAGE_PREAMBLE_LENGTH) return undefined;
  const version = start.readUInt16BE(8);
  if (version !== IMAGE_FORMAT_VERSION && version !== SIGNED_IMAGE_FORMAT_VERSION)
    throw new ImageFormatError(
      'unsupported-version',
      `image format version ${version} is not supported (this unit reads versions ${IMAGE_FORMAT_VERSION} and ${SIGNED_IMAGE_FORMAT_VERSION})`,
    );
  const headerLength = start.readUInt16BE(10);
  if (headerLength < FIXED_FIELDS_LENGTH + 1 || headerLength > MAX_HEADER_LENGTH) {
    throw new ImageFormatError(
      'corrupt-header',
      `image header length ${headerLength} is outside ${FIXED_FIELDS_LENGTH + 1}..${MAX_HEADER_LENGTH}`,
    );
  }
  return headerLength;
}

/**
 * Parses a complete header (exactly `headerLength` bytes, as checkPreamble reported); a version 2
 * header with the body of its signature block (the bytes after its length field).
 */
export function parseImageHeader(header: Buffer, signatureBody: Buffer = Buffer.alloc(0)): ImageHeader {
  const headerLength = checkPreamble(header);
  if (headerLength === undefined || header.length < headerLength)
    throw new ImageFormatError('truncated', `the image ends inside its header (${header.length} bytes)`);
  const bodyEnd = headerLength - DIGEST_LENGTH;
  const expectedDigest = createHash('sha256').update(header.subarray(0, bodyEnd)).digest();
  if (!expectedDigest.equals(header.subarray(bodyEnd, headerLength)))
    throw new ImageFormatError('corrupt-header', 'the image header is corrupt (header SHA-256 mismatch)');
  const payloadLength = header.readBigUInt64BE(12);
  if (payloadLength > BigInt(Number.MAX_SAFE_INTEGER))
    throw new ImageFormatError('corrupt-header', `payload length ${payloadLength} is too large`);
  const revLength = header.readUInt16BE(52);
  if (revLength < 1 || revLength > MAX_IMAGE_REV_LENGTH || 56 + revLength > bodyEnd)
    throw new ImageFormatError('corrupt-header', `image_rev length ${revLength} is invalid`);
  const imageRev = header.toString('latin1', 54, 54 + revLength);
  const manifestLength = header.readUInt16BE(54 + revLength);
  if (56 + revLength + manifestLength !== bodyEnd)
    throw new ImageFormatError('corrupt-header', 'image header field lengths do not add up to the header length');
  const revProblem = parseImageRev(imageRev).problem;
  if (revProblem) throw new ImageFormatError('invalid-image-rev', revProblem);
  let manifest: Record<string, string>;
  try {
    manifest = decodeManifest(header.subarray(56 + revLength, bodyEnd));
  } catch (err) {
    if (err instanceof ImageFormatError) throw err;
    throw new ImageFormatError('invalid-manifest', 'the image manifest is not UTF-8');
  }
  const formatVersion = header.readUInt16BE(8);
  const signed = formatVersion === SIGNED_IMAGE_FORMAT_VERSION;
  const { signatures, problem } = parseSignatureEntries(signatureBody);
  if (problem) throw new ImageFormatError('corrupt-signature-block', problem);
  return {
    formatVersion,
    headerLength,
    payloadOffset: headerLength + (signed ? SIGNATURE_LENGTH_FIELD + signatureBody.length : 0),
    signatures,
    payloadLength: Number(payloadLength),
    payloadSha256: header.toString('hex', 20, 52),
    imageRev,
    manifest,
  };
}

/** Opaque, deterministic payload bytes (SHAKE256 of `seed`): a stand-in for a real root filesystem. */
export function generatedPayload(seed: string, length: number): Buffer {
  // SHAKE256 is an extendable-output hash: any length in one pass, where a SHA-256 per
  // 32-byte block was a noticeable part of a first start (docs/benchmarks.md, figures behind design choices).
  if (length === 0) return Buffer.alloc(0);
  return createHash('shake256', { outputLength: length }).update(seed).digest();
}
