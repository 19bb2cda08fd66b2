import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/model/errors.js';
import { buildImage, generatedPayload } from '../../src/model/image-format.js';
import { ImageVerifier } from '../../src/model/image-verifier.js';
import { slotPath } from '../../src/core/firmware/slot-files.js';
import { writeUploadToSlot } from '../../src/core/firmware/upload-writer.js';

const REV = 'ousteros-image-prod-bootes-v3.2.0+20250101120000';
const image = buildImage(REV, generatedPayload('upload', 200_000));

/** Yields `bytes` in chunks and counts how many chunks the consumer pulled. */
function chunked(bytes: Buffer, size: number, pulled = { count: 0 }, failAfter?: number) {
  return {
    pulled,
    async *[Symbol.asyncIterator]() {
      for (let offset = 0; offset < bytes.length; offset += size) {
        if (failAfter !== undefined && pulled.count >= failAfter)
          throw Object.assign(new Error('aborted'), { code: 'ECONNRESET' });
        pulled.count++;
        yield bytes.subarray(offset, offset + size);
      }
    },
  };
}

async function refusal(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected the upload to be refused');
}

describe('firmware upload writer', () => {
  let dir: string;
  const previous = Buffer.from('the image slot b held before');
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'upload-writer-'));
    writeFileSync(slotPath(dir, 'b'), previous);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const slotUntouched = () => {
    expect(readFileSync(slotPath(dir, 'b')).equals(previous)).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(['slot-b.img']);
  };

  it('streams a valid image into the slot file and leaves no temporary file', async () => {
    const header = await writeUploadToSlot(chunked(image, 16_384), { dir, slot: 'b', maxBytes: 1 << 20 });
    expect(header.imageRev).toBe(REV);
    expect(readFileSync(slotPath(dir, 'b')).equals(image)).toBe(true);
    expect(readdirSync(dir)).toEqual(['slot-b.img']);
  });

  it('refuses a foreign file after its first chunk without reading the rest', async () => {
    const foreign = Buffer.concat([Buffer.from('\x1f\x8b\x08\x00'), generatedPayload('gzip', 100_000)]);
    const source = chunked(foreign, 4096);
    const error = await refusal(writeUploadToSlot(source, { dir, slot: 'b', maxBytes: 1 << 20 }));
    expect(error.status).toBe(400);
    expect(error.detail).toMatch(/not a firmware image/);
    expect(source.pulled.count).toBe(1);
    slotUntouched();
  });

  it('refuses truncated and corrupt images with 400 and leaves the slot as it was', async () => {
    const truncated = await refusal(
      writeUploadToSlot(chunked(image.subarray(0, image.length - 1), 8192), { dir, slot: 'b', maxBytes: 1 << 20 }),
    );
    expect(truncated.status).toBe(400);
    expect(truncated.detail).toMatch(/truncated/);
    slotUntouched();
    const corrupt = Buffer.from(image);
    corrupt[corrupt.length - 100] ^= 1;
    const error = await refusal(writeUploadToSlot(chunked(corrupt, 8192), { dir, slot: 'b', maxBytes: 1 << 20 }));
    expect(error.status).toBe(400);
    expect(error.detail).toMatch(/payload is corrupt/);
    slotUntouched();
  });

  it('refuses an image larger than the limit with 413 as soon as its header announces it', async () => {
    const source = chunked(image, 1024);
    const error = await refusal(writeUploadToSlot(source, { dir, slot: 'b', maxBytes: 100_000 }));
    expect(error.status).toBe(413);
    expect(source.pulled.count).toBe(1);
    slotUntouched();
  });

  it('cleans up when the client goes away mid-upload', async () => {
    const error = await refusal(
      writeUploadToSlot(chunked(image, 8192, { count: 0 }, 5), { dir, slot: 'b', maxBytes: 1 << 20 }),
    );
    expect(error.status).toBe(400);
    expect(error.detail).toMatch(/ended before/);
    slotUntouched();
  });
});

describe('npm run firmware-image', () => {
  it('builds an image from a payload file that the verifier accepts byte for byte', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fw-tool-'));
    try {
      const payload = generatedPayload('tool', 300_001);
      writeFileSync(join(dir, 'payload.bin'), payload);
      const out = join(dir, 'out.img');
      const tsx = resolve(import.meta.dirname, '../../node_modules/.bin/tsx');
      const script = resolve(import.meta.dirname, '../../scripts/firmware-image.ts');
      const { stdout } = await promisify(execFile)(tsx, [
        script,
        '--rev',
        REV,
        '--out',
        out,
        '--payload',
        join(dir, 'payload.bin'),
        '--manifest',
        'sim.boot=fail',
      ]);
      expect(stdout).toMatch(/payload sha256 [0-9a-f]{64}/);
      const bytes = readFileSync(out);
      const verifier = new ImageVerifier();
      verifier.push(bytes);
      const header = verifier.finish();
      expect(header).toMatchObject({ imageRev: REV, payloadLength: payload.length, manifest: { 'sim.boot': 'fail' } });
      expect(bytes.subarray(header.headerLength).equals(payload)).toBe(true);
      const bad = await promisify(execFile)(tsx, [script, '--rev', 'v3.1.0', '--out', out]).catch(
        (e: { code: number; stderr: string }) => e,
      );
      expect(bad).toMatchObject({ code: 2 });
      expect((bad as { stderr: string }).stderr).toMatch(/does not have the form/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
