/** Verifying a firmware image (image-format.ts) as its bytes arrive, before any of it is kept. */
import { createHash, type Hash } from 'node:crypto';
import {
  type ArrivedHeader,
  checkPreamble,
  ImageFormatError,
  type ImageHeader,
  MAX_IMAGE_REV_LENGTH,
  parseImageHeader,
  SIGNATURE_LENGTH_FIELD,
  SIGNED_IMAGE_FORMAT_VERSION,
} from './image-format.js';
import { MAX_SIGNATURE_BLOCK_LENGTH, parseSignatureEntries } from './image-signature.js';

/** Looks at a header and its signatures before anything else of the image is accepted; throws to refuse. */
export type HeaderGate = (arrived: ArrivedHeader) => void;

/** image_rev as a header states it, before any check: printable ASCII only, for naming the image in a refusal. */
function statedImageRev(header: Buffer): string {
  const length = Math.min(header.readUInt16BE(52), MAX_IMAGE_REV_LENGTH, Math.max(0, header.length - 54));
  return header.toString('latin1', 54, 54 + length).replace(/[^\x20-\x7e]/g, '?');
}

/**
 * Verifies an image as its bytes arrive, in chunks of any size: the header (and a version 2 image's
 * signatures, through the gate) as soon as they are complete, the payload digest incrementally, and
 * the exact length. Throws ImageFormatError (or what the gate throws) at the first byte that proves
 * the image bad.
 */
export class ImageVerifier {
  /** Bytes of the header and signature block received so far (until both are complete). */
  private prefix: Buffer = Buffer.alloc(0);
  private headerLength: number | undefined;
  /** Header plus signature block, once the block's length is known. */
  private prefixLength: number | undefined;
  private parsed: ImageHeader | undefined;
  private readonly hash: Hash = createHash('sha256');
  private payloadBytesSeen = 0;
  private totalBytesSeen = 0;

  constructor(private readonly gate?: HeaderGate) {}

  /** The header, once its bytes (and a signed image's signatures) have arrived and passed the gate. */
  get header(): ImageHeader | undefined {
    return this.parsed;
  }

  /** Total image length the header announces, once known. */
  get expectedLength(): number | undefined {
    return this.parsed ? this.parsed.payloadOffset + this.parsed.payloadLength : undefined;
  }

  get bytesSeen(): number {
    return this.totalBytesSeen;
  }

  /** image_rev as the header states it, unverified, once the header bytes have arrived: to name a refused image. */
  get statedImageRev(): string | undefined {
    if (this.parsed) return this.parsed.imageRev;
    const length = this.headerLength;
    return length !== undefined && this.prefix.length >= length ? statedImageRev(this.prefix) : undefined;
  }

  push(chunk: Buffer): void {
    this.totalBytesSeen += chunk.length;
    let payloadPart = chunk;
    if (!this.parsed) {
      this.prefix = this.prefix.length === 0 ? chunk : Buffer.concat([this.prefix, chunk]);
      // Until the preamble is complete this re-checks the magic against every byte seen so far.
      this.headerLength ??= checkPreamble(this.prefix);
      if (this.headerLength === undefined || this.prefix.length < this.headerLength) return;
      this.prefixLength ??= this.prefixLengthOf(this.headerLength);
      if (this.prefixLength === undefined || this.prefix.length < this.prefixLength) return;
      this.parsed = this.acceptPrefix(this.prefix.subarray(0, this.prefixLength), this.headerLength);
      payloadPart = this.prefix.subarray(this.prefixLength);
      this.prefix = Buffer.alloc(0);
    }
    if (payloadPart.length === 0) return;
    if (this.payloadBytesSeen + payloadPart.length > this.parsed.payloadLength) {
      throw new ImageFormatError(
        'trailing-data',
        `the image holds more than the ${this.expectedLength} bytes its header announces`,
      );
    }
    this.hash.update(payloadPart);
    this.payloadBytesSeen += payloadPart.length;
  }

  /** Header plus signature block; undefined while a version 2 block's length field has not arrived. */
  private prefixLengthOf(headerLength: number): number | undefined {
    if (this.prefix.readUInt16BE(8) !== SIGNED_IMAGE_FORMAT_VERSION) return headerLength;
    if (this.prefix.length < headerLength + SIGNATURE_LENGTH_FIELD) return undefined;
    const blockLength = this.prefix.readUInt16BE(headerLength);
    if (blockLength > MAX_SIGNATURE_BLOCK_LENGTH)
      throw new ImageFormatError(
        'corrupt-signature-block',
        `the signature block is ${blockLength} bytes; at most ${MAX_SIGNATURE_BLOCK_LENGTH}`,
      );
    return headerLength + SIGNATURE_LENGTH_FIELD + blockLength;
  }

  private acceptPrefix(prefix: Buffer, headerLength: number): ImageHeader {
    const header = prefix.subarray(0, headerLength);
    const signatureBody = prefix.subarray(Math.min(prefix.length, headerLength + SIGNATURE_LENGTH_FIELD));
    const { signatures, problem } = parseSignatureEntries(signatureBody);
    if (problem) throw new ImageFormatError('corrupt-signature-block', problem);
    // The gate sees the bytes as they arrived, before the header's own digest is checked.
    this.gate?.({
      formatVersion: header.readUInt16BE(8),
      header,
      signatures,
      statedImageRev: statedImageRev(header),
    });
    return parseImageHeader(header, signatureBody);
  }

  /** Call after the last byte: the verified header, or ImageFormatError (truncated, corrupt payload). */
  finish(): ImageHeader {
    if (!this.parsed) {
      if (this.totalBytesSeen === 0) throw new ImageFormatError('foreign', 'the upload is empty: no firmware image');
      throw new ImageFormatError('truncated', `the image ends inside its header (${this.totalBytesSeen} bytes)`);
    }
    if (this.payloadBytesSeen < this.parsed.payloadLength) {
      throw new ImageFormatError(
        'truncated',
        `the image is truncated: ${this.bytesSeen} of ${this.expectedLength} bytes`,
      );
    }
    const digest = this.hash.digest('hex');
    if (digest !== this.parsed.payloadSha256)
      throw new ImageFormatError('corrupt-payload', 'the image payload is corrupt (payload SHA-256 mismatch)');
    return this.parsed;
  }
}
