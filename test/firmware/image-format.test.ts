import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  buildImage,
  encodeImageHeader,
  ImageFormatError,
  IMAGE_FORMAT_VERSION,
  parseImageHeader,
  type ImageProblem,
} from '../../src/model/image-format.js';
import { ImageVerifier } from '../../src/model/image-verifier.js';
import { parseImageRev } from '../../src/model/image-rev.js';
import { generatedPayload } from '../../src/model/image-format.js';

const REV = 'ousteros-image-prod-bootes-v3.2.0+20250101120000';

function verifyInChunks(image: Buffer, sizes: number[]) {
  const verifier = new ImageVerifier();
  let offset = 0;
  let i = 0;
  while (offset < image.length) {
    const size = Math.max(1, sizes[i++ % sizes.length] ?? 1);
    verifier.push(image.subarray(offset, offset + size));
    offset += size;
  }
  return verifier.finish();
}

function problemOf(fn: () => unknown): ImageProblem | 'none' {
  try {
    fn();
    return 'none';
  } catch (error) {
    if (error instanceof ImageFormatError) return error.problem;
    throw error;
  }
}

/** Reads the header by the documented offsets only (an independent decoder, not the module's parser). */
function decodeByDocumentedLayout(image: Buffer) {
  const revLength = image.readUInt16BE(52);
  const manifestLength = image.readUInt16BE(54 + revLength);
  const headerLength = 88 + revLength + manifestLength;
  return {
    magic: image.toString('latin1', 0, 8),
    version: image.readUInt16BE(8),
    headerLength: image.readUInt16BE(10),
    computedHeaderLength: headerLength,
    payloadLength: Number(image.readBigUInt64BE(12)),
    payloadSha256: image.toString('hex', 20, 52),
    imageRev: image.toString('latin1', 54, 54 + revLength),
    manifest: image.toString('utf8', 56 + revLength, 56 + revLength + manifestLength),
    headerDigest: image.toString('hex', headerLength - 32, headerLength),
    headerDigestExpected: createHash('sha256')
      .update(image.subarray(0, headerLength - 32))
      .digest('hex'),
    payload: image.subarray(headerLength),
  };
}

describe('firmware image format', () => {
  const payload = generatedPayload('test', 10_000);
  const image = buildImage(REV, payload, { 'sim.boot': 'fail', note: 'größe ok' });

  it('lays the header out exactly as documented', () => {
    const d = decodeByDocumentedLayout(image);
    expect(d.magic).toBe('LSFWIMG\n');
    expect(d.version).toBe(IMAGE_FORMAT_VERSION);
    expect(d.headerLength).toBe(d.computedHeaderLength);
    expect(d.payloadLength).toBe(payload.length);
    expect(d.payloadSha256).toBe(createHash('sha256').update(payload).digest('hex'));
    expect(d.imageRev).toBe(REV);
    expect(d.manifest).toBe('sim.boot=fail\nnote=größe ok');
    expect(d.headerDigest).toBe(d.headerDigestExpected);
    expect(d.payload.equals(payload)).toBe(true);
  });

  it('verifies an image delivered in chunks of any size', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 3000 }), { minLength: 1, maxLength: 20 }), (sizes) => {
        const header = verifyInChunks(image, sizes);
        expect(header.imageRev).toBe(REV);
        expect(header.manifest).toEqual({ 'sim.boot': 'fail', note: 'größe ok' });
        expect(header.payloadLength).toBe(payload.length);
      }),
      { numRuns: 200 },
    );
  });

  it('accepts an empty payload and an empty manifest', () => {
    const empty = buildImage(REV, Buffer.alloc(0));
    expect(verifyInChunks(empty, [7]).payloadLength).toBe(0);
    expect(parseImageHeader(empty).manifest).toEqual({});
  });

  it('refuses a foreign file from its first bytes, before the rest arrives', () => {
    for (const foreign of [
      Buffer.from('\x1f\x8b\x08\x00'),
      Buffer.from('PK\x03\x04'),
      Buffer.from('{"a":1}'),
      Buffer.from('L'),
    ]) {
      const verifier = new ImageVerifier();
      const first = foreign.subarray(0, 1);
      if (first.equals(Buffer.from('L'))) {
        // "L" is a valid start; the next, wrong byte is refused.
        verifier.push(first);
        expect(problemOf(() => verifier.push(Buffer.from('X')))).toBe('foreign');
      } else {
        expect(problemOf(() => verifier.push(first))).toBe('foreign');
      }
    }
  });

  it('refuses a file that starts right but uses another format version', () => {
    const other = Buffer.from(image);
    other.writeUInt16BE(3, 8); // 2 is the signed format (image-signature.test.ts)
    expect(problemOf(() => new ImageVerifier().push(other.subarray(0, 12)))).toBe('unsupported-version');
  });

  it('refuses every truncation', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: image.length - 1 }), (length) => {
        const problem = problemOf(() => verifyInChunks(image.subarray(0, length), [1024]));
        expect(['truncated', 'foreign']).toContain(problem);
        if (length > 0) expect(problem).toBe('truncated');
      }),
      { numRuns: 200 },
    );
  });

  it('refuses any single flipped bit', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: image.length * 8 - 1 }), (bit) => {
        const corrupt = Buffer.from(image);
        corrupt[bit >> 3] ^= 1 << (bit & 7);
        expect(problemOf(() => verifyInChunks(corrupt, [4096]))).not.toBe('none');
      }),
      { numRuns: 500 },
    );
  });

  it('names the problem of a corrupt header, a corrupt payload and trailing bytes', () => {
    const revByte = Buffer.from(image);
    revByte[60] ^= 0x20;
    expect(problemOf(() => verifyInChunks(revByte, [100]))).toBe('corrupt-header');
    const payloadByte = Buffer.from(image);
    payloadByte[payloadByte.length - 1] ^= 0xff;
    expect(problemOf(() => verifyInChunks(payloadByte, [100]))).toBe('corrupt-payload');
    expect(problemOf(() => verifyInChunks(Buffer.concat([image, Buffer.from([0])]), [100]))).toBe('trailing-data');
    expect(problemOf(() => new ImageVerifier().finish())).toBe('foreign');
  });

  it('refuses to encode or accept an image_rev clients could not parse', () => {
    for (const rev of [
      '',
      'v3.1.0',
      'ousteros-image-prod-bootes-v3.1+20240426041747',
      'ousteros-image-prod-bootes-v3.1.0+20241326041747',
      'ousteros-image-prod-Bootes-v3.1.0+20240426041747',
    ]) {
      expect(
        problemOf(() => encodeImageHeader({ imageRev: rev, payloadLength: 0, payloadSha256: Buffer.alloc(32) })),
        rev,
      ).toBe('invalid-image-rev');
    }
  });

  it('refuses a manifest with duplicate keys even when the header digest is right', () => {
    const rev = Buffer.from(REV, 'latin1');
    const manifest = Buffer.from('a=1\na=2');
    const headerLength = 88 + rev.length + manifest.length;
    const header = Buffer.alloc(headerLength);
    header.write('LSFWIMG\n', 0, 'latin1');
    header.writeUInt16BE(1, 8);
    header.writeUInt16BE(headerLength, 10);
    header.writeUInt16BE(rev.length, 52);
    rev.copy(header, 54);
    header.writeUInt16BE(manifest.length, 54 + rev.length);
    manifest.copy(header, 56 + rev.length);
    createHash('sha256')
      .update(header.subarray(0, headerLength - 32))
      .digest()
      .copy(header, headerLength - 32);
    expect(problemOf(() => parseImageHeader(header))).toBe('invalid-manifest');
  });

  it('derives the firmware build from image_rev and round-trips it', () => {
    expect(parseImageRev('ousteros-image-prod-bootes-v3.1.0+20240426041747').build).toEqual({
      version: '3.1.0',
      machine: 'bootes',
      buildDate: '2024-04-26T04:17:47Z',
    });
    expect(parseImageRev('ousteros-image-prod-bootes-v3.1.0+20240230041747').problem).toMatch(/build time/);
  });
});
