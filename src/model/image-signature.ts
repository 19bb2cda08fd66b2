/**
 * Signatures of firmware images (format version 2, src/model/image-format.ts): Ed25519 over the image
 * header. The header holds the payload's SHA-256 and its own digest over image_rev and manifest, so a
 * signature over the header covers every byte that is installed; the payload is checked against the
 * signed digest as it streams, so nothing is ever held in memory to verify it.
 *
 * The signature block follows the header: a 2-byte length S, then S / 96 entries, each the signing
 * key's fingerprint (32 bytes) and the Ed25519 signature (64 bytes). Several entries let one image
 * carry the signatures of an old and a new key during a key change-over.
 */
import { createHash, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';

export const FINGERPRINT_LENGTH = 32;
export const ED25519_SIGNATURE_LENGTH = 64;
export const SIGNATURE_ENTRY_LENGTH = FINGERPRINT_LENGTH + ED25519_SIGNATURE_LENGTH;
/** More than any change-over needs; bounds the bytes a unit holds before it has decided. */
export const MAX_SIGNATURES = 16;
export const MAX_SIGNATURE_BLOCK_LENGTH = MAX_SIGNATURES * SIGNATURE_ENTRY_LENGTH;
/** Domain separation: a signature made for an image header cannot be replayed as one over anything else. */
const SIGNED_CONTEXT = Buffer.from('LSFWIMG header signature v1\n', 'latin1');

export interface ImageSignature {
  /** SHA-256 of the public key's SubjectPublicKeyInfo (DER), lower-case hex. */
  fingerprint: string;
  signature: Buffer;
}

/** The fingerprint of an Ed25519 key (private or public): what images, logs and the trust store name a key by. */
export function keyFingerprint(key: KeyObject): string {
  const publicKey = key.type === 'private' ? createPublicKey(key) : key;
  return createHash('sha256')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest('hex');
}

export function isEd25519(key: KeyObject): boolean {
  return key.asymmetricKeyType === 'ed25519';
}

/** Ed25519 signature of `header` (the image's header bytes, up to and including the header digest). */
export function signImageHeader(header: Buffer, privateKey: KeyObject): ImageSignature {
  if (!isEd25519(privateKey) || privateKey.type !== 'private')
    throw new TypeError(`a firmware signing key must be an Ed25519 private key; got ${privateKey.asymmetricKeyType}`);
  return {
    fingerprint: keyFingerprint(privateKey),
    signature: sign(null, Buffer.concat([SIGNED_CONTEXT, header]), privateKey),
  };
}

export function verifyImageHeader(header: Buffer, signature: Buffer, publicKey: KeyObject): boolean {
  if (signature.length !== ED25519_SIGNATURE_LENGTH) return false;
  return verify(null, Buffer.concat([SIGNED_CONTEXT, header]), publicKey, signature);
}

/** The signature block (length field included) holding `signatures`. */
export function encodeSignatureBlock(signatures: readonly ImageSignature[]): Buffer {
  if (signatures.length > MAX_SIGNATURES)
    throw new RangeError(`an image carries at most ${MAX_SIGNATURES} signatures; got ${signatures.length}`);
  const block = Buffer.alloc(2 + signatures.length * SIGNATURE_ENTRY_LENGTH);
  block.writeUInt16BE(signatures.length * SIGNATURE_ENTRY_LENGTH, 0);
  signatures.forEach((s, i) => {
    const at = 2 + i * SIGNATURE_ENTRY_LENGTH;
    Buffer.from(s.fingerprint, 'hex').copy(block, at);
    s.signature.copy(block, at + FINGERPRINT_LENGTH);
  });
  return block;
}

/** The entries of a signature block's body (without its length field), or why it is malformed. */
export function parseSignatureEntries(body: Buffer): { signatures: ImageSignature[]; problem?: string } {
  if (body.length % SIGNATURE_ENTRY_LENGTH !== 0) {
    const whole = Math.floor(body.length / SIGNATURE_ENTRY_LENGTH);
    return {
      signatures: [],
      problem: `the signature block is malformed: ${body.length} bytes are not whole ${SIGNATURE_ENTRY_LENGTH}-byte signatures (signature ${whole + 1} is truncated)`,
    };
  }
  const signatures: ImageSignature[] = [];
  for (let at = 0; at < body.length; at += SIGNATURE_ENTRY_LENGTH) {
    signatures.push({
      fingerprint: body.toString('hex', at, at + FINGERPRINT_LENGTH),
      signature: Buffer.from(body.subarray(at + FINGERPRINT_LENGTH, at + SIGNATURE_ENTRY_LENGTH)),
    });
  }
  return { signatures };
}
