/**
 * Which firmware images this unit installs: the trust store (`--firmware-trust DIR`, every `*.pem`
 * Ed25519 public key in it) and the optional anti-rollback floor (`--firmware-min-version`). With at
 * least one trusted key an image must carry a signature of one of them that verifies over its header
 * (src/model/image-signature.ts); the payload is then held to the header's signed digest as it
 * streams. The checks run on the header, before any byte of the image is written anywhere.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ApiError, type ProblemType } from '../../model/index.js';
import type { ArrivedHeader, ImageFormatError, ImageHeader } from '../../model/index.js';
import { parseImageRev } from '../../model/index.js';
import { isEd25519, keyFingerprint, verifyImageHeader } from '../../model/index.js';

export interface TrustedKey {
  /** SHA-256 of the key's SubjectPublicKeyInfo (DER), hex: what images and logs name it by. */
  fingerprint: string;
  /** The file it came from. */
  file: string;
  key: KeyObject;
}

/** A refused image: a 403 problem naming the reason, and the image_rev for the log line. */
export class FirmwareRefusal extends ApiError {
  constructor(
    type: ProblemType,
    detail: string,
    readonly imageRev: string,
  ) {
    super(type, `${detail}; nothing was installed`);
  }
}

/** Short form of a fingerprint for problem details (the log and the diagnostics dump carry the full one). */
export const shortFingerprint = (fingerprint: string) => `sha256:${fingerprint.slice(0, 16)}`;

/**
 * Reads every `*.pem` in `dir` as an Ed25519 public key. Anything else there (a private key, another
 * algorithm, a file that is not a key) stops the start: a trust store that silently trusts less than
 * its owner thinks is worse than one that refuses to start.
 */
export async function loadTrustStore(dir: string): Promise<TrustedKey[]> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((name) => name.endsWith('.pem')).sort();
  } catch (error) {
    throw new Error(`firmware trust folder ${dir} cannot be read: ${(error as Error).message}`);
  }
  const keys: TrustedKey[] = [];
  for (const name of names) {
    const file = join(dir, name);
    const pem = await readFile(file, 'utf8');
    if (/PRIVATE KEY/.test(pem))
      throw new Error(`${file} holds a private key; the firmware trust folder takes public keys only`);
    let key: KeyObject;
    try {
      key = createPublicKey(pem);
    } catch (error) {
      throw new Error(`${file} is not a PEM public key: ${(error as Error).message}`);
    }
    if (!isEd25519(key)) throw new Error(`${file} is an ${key.asymmetricKeyType} key; firmware signatures are Ed25519`);
    keys.push({ fingerprint: keyFingerprint(key), file, key });
  }
  return keys;
}

/** `X.Y.Z` (a leading `v` allowed) as comparable numbers; undefined when it is not one. */
export function parseVersion(text: string): number[] | undefined {
  const m = /^v?(\d{1,4})\.(\d{1,4})\.(\d{1,4})$/.exec(text.trim());
  return m ? m.slice(1).map(Number) : undefined;
}

function compareVersions(a: number[], b: number[]): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

export class FirmwarePolicy {
  private readonly byFingerprint: Map<string, TrustedKey>;

  constructor(
    readonly trustedKeys: readonly TrustedKey[] = [],
    /** The oldest version installed (`--firmware-min-version`); undefined: any. */
    readonly minVersion?: string,
  ) {
    this.byFingerprint = new Map(trustedKeys.map((k) => [k.fingerprint, k]));
    if (minVersion !== undefined && !parseVersion(minVersion))
      throw new Error(`--firmware-min-version must be X.Y.Z; got ${JSON.stringify(minVersion)}`);
  }

  /** With a key in the trust store, only images one of them signed install. */
  get requiresSignature(): boolean {
    return this.trustedKeys.length > 0;
  }

  private trustedList(): string {
    return this.trustedKeys.map((k) => shortFingerprint(k.fingerprint)).join(', ');
  }

  /** The image's header and signatures have arrived: throws FirmwareRefusal unless a trusted key signed it. */
  readonly checkSignatures = (arrived: ArrivedHeader): void => {
    if (!this.requiresSignature) return;
    const rev = arrived.statedImageRev;
    if (arrived.signatures.length === 0) {
      throw new FirmwareRefusal(
        'firmware-unsigned',
        `firmware image ${rev} is not signed; this unit installs only images signed by a key of its trust store (${this.trustedList()})`,
        rev,
      );
    }
    const trusted = arrived.signatures.filter((s) => this.byFingerprint.has(s.fingerprint));
    if (trusted.length === 0) {
      throw new FirmwareRefusal(
        'firmware-untrusted',
        `firmware image ${rev} is signed only by keys this unit does not trust (${arrived.signatures.map((s) => shortFingerprint(s.fingerprint)).join(', ')}); trusted: ${this.trustedList()}`,
        rev,
      );
    }
    const verified = trusted.some((s) =>
      verifyImageHeader(arrived.header, s.signature, this.byFingerprint.get(s.fingerprint)!.key),
    );
    if (!verified) {
      throw new FirmwareRefusal(
        'firmware-signature-invalid',
        `the signature of firmware image ${rev} by trusted key ${shortFingerprint(trusted[0].fingerprint)} does not verify: the image header was changed after signing`,
        rev,
      );
    }
  };

  /** The verified header: throws FirmwareRefusal when it is older than --firmware-min-version. */
  checkVersion(header: ImageHeader): void {
    if (this.minVersion === undefined) return;
    const version = parseImageRev(header.imageRev).build?.version;
    const parsed = version === undefined ? undefined : parseVersion(version);
    if (parsed && compareVersions(parsed, parseVersion(this.minVersion)!) >= 0) return;
    throw new FirmwareRefusal(
      'firmware-too-old',
      `firmware image ${header.imageRev} is version ${version}; this unit installs ${this.minVersion} or newer (--firmware-min-version)`,
      header.imageRev,
    );
  }

  /**
   * A format error met after the signature check, as the trust store sees it: with signatures required,
   * a payload that does not match the signed digest, or a damaged signature block, is a signature that
   * does not verify. Undefined: the error stands as it is (a 400).
   */
  refusalFor(error: ImageFormatError, imageRev: string | undefined): FirmwareRefusal | undefined {
    if (!this.requiresSignature) return undefined;
    const rev = imageRev ?? 'of unknown revision';
    if (error.problem === 'corrupt-payload')
      return new FirmwareRefusal(
        'firmware-signature-invalid',
        `the payload of firmware image ${rev} was changed after signing: its SHA-256 differs from the one the signed header carries`,
        rev,
      );
    if (error.problem === 'corrupt-signature-block')
      return new FirmwareRefusal(
        'firmware-signature-invalid',
        `the signature of firmware image ${rev} does not verify: ${error.message}`,
        rev,
      );
    return undefined;
  }
}
