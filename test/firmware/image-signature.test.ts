/**
 * Signed images (format version 2) at the byte level: unsigned images stay version 1 byte for byte,
 * a signed image carries one verifiable signature per key, the streaming verifier reads it in chunks
 * of any size, and the gate sees exactly the signed header bytes before the header is parsed.
 */
import { createHash, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  type ArrivedHeader,
  buildImage,
  encodeImageHeader,
  generatedPayload,
  ImageFormatError,
} from '../../src/model/image-format.js';
import { ImageVerifier } from '../../src/model/image-verifier.js';
import { keyFingerprint, verifyImageHeader } from '../../src/model/image-signature.js';

const REV = 'ousteros-image-prod-bootes-v3.2.0+20250101120000';
const payload = generatedPayload('sig', 5000);
const keys = [generateKeyPairSync('ed25519'), generateKeyPairSync('ed25519')];

function verifyInChunks(image: Buffer, size: number, gate?: (a: ArrivedHeader) => void) {
  const verifier = new ImageVerifier(gate);
  for (let at = 0; at < image.length; at += size) verifier.push(image.subarray(at, at + size));
  return { header: verifier.finish(), bytes: verifier.bytesSeen };
}

describe('signed firmware images', () => {
  it('leaves unsigned images exactly as before: version 1, header then payload', () => {
    const image = buildImage(REV, payload);
    const header = encodeImageHeader({
      imageRev: REV,
      payloadLength: payload.length,
      payloadSha256: createHash('sha256').update(payload).digest(),
    });
    expect(image.equals(Buffer.concat([header, payload]))).toBe(true);
    expect(image.readUInt16BE(8)).toBe(1);
    expect(verifyInChunks(image, 4096).header).toMatchObject({ formatVersion: 1, signatures: [] });
  });

  it('carries one signature per key over the header, verifiable with each public key', () => {
    const image = buildImage(REV, payload, {}, [keys[0].privateKey, keys[1].privateKey]);
    expect(image.readUInt16BE(8)).toBe(2);
    const headerLength = image.readUInt16BE(10);
    expect(image.readUInt16BE(headerLength)).toBe(2 * 96);
    const { header, bytes } = verifyInChunks(image, 4096);
    expect(bytes).toBe(image.length);
    expect(header.payloadOffset).toBe(headerLength + 2 + 192);
    expect(header.payloadOffset + header.payloadLength).toBe(image.length);
    expect(header.signatures.map((s) => s.fingerprint)).toEqual(keys.map((k) => keyFingerprint(k.publicKey)));
    header.signatures.forEach((s, i) => {
      expect(verifyImageHeader(image.subarray(0, headerLength), s.signature, keys[i].publicKey)).toBe(true);
      expect(verifyImageHeader(image.subarray(0, headerLength), s.signature, keys[1 - i].publicKey)).toBe(false);
    });
  });

  it('verifies in chunks of any size and shows the gate the signed bytes before parsing', () => {
    const image = buildImage(REV, payload, { 'sim.boot': 'ok' }, [keys[0].privateKey]);
    const headerLength = image.readUInt16BE(10);
    for (const size of [1, 7, 96, 97, headerLength, headerLength + 2, 1000, image.length]) {
      const seen: ArrivedHeader[] = [];
      const { header } = verifyInChunks(image, size, (a) => seen.push(a));
      expect(header.manifest).toEqual({ 'sim.boot': 'ok' });
      expect(seen).toHaveLength(1);
      expect(seen[0].header.equals(image.subarray(0, headerLength))).toBe(true);
      expect(seen[0].statedImageRev).toBe(REV);
    }
  });

  it('refuses a signature block longer than 16 signatures before reading it', () => {
    const image = buildImage(REV, payload, {}, [keys[0].privateKey]);
    image.writeUInt16BE(17 * 96, image.readUInt16BE(10));
    expect(() => verifyInChunks(image, 4096)).toThrow(ImageFormatError);
  });
});
