/**
 * Signed firmware through the listening HTTP server: with a trust store only images a trusted key
 * signed install; unsigned, untrusted, tampered and truncated-signature images are refused (403, a
 * problem naming the reason) before anything reaches the disk, the upload lock is free at once and
 * the next good upload installs. Without a trust store unsigned images install as before.
 */
import { createHash, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { FirmwarePolicy, loadTrustStore } from '../../src/core/firmware/firmware-trust.js';
import { buildImage, generatedPayload } from '../../src/model/image-format.js';
import { keyFingerprint } from '../../src/model/image-signature.js';
import { sensorDumpSections } from '../../src/core/diagnostics/sensor-dump.js';
import { createTestSensor, removeDir, type TestSensor } from '../helpers/test-sensor.js';
import { uploadFirmware } from './http-upload.js';
import { slotFilesDigest } from './slot-files-digest.js';
import { waitFor } from '../helpers/poll.js';

const NEW_REV = 'ousteros-image-prod-bootes-v3.2.0+20250101120000';
const OLD_REV = 'ousteros-image-prod-bootes-v3.0.0+20230101120000';

interface Unit {
  t: TestSensor;
  baseUrl: string;
  logLines: string[];
}

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

function keyPair(): { privateKey: KeyObject; publicPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return { privateKey, publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString() };
}

const keyA = keyPair();
const keyB = keyPair();
const stranger = keyPair();

/** A trust folder holding these public keys, as a firmware team would drop them there. */
function trustFolder(...keys: { publicPem: string }[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'h35-trust-'));
  keys.forEach((k, i) => writeFileSync(join(dir, `team-${i}.pem`), k.publicPem));
  cleanup.push(() => removeDir(dir));
  return dir;
}

async function startUnit(options: { trust?: string; minVersion?: string } = {}): Promise<Unit> {
  const keys = options.trust ? await loadTrustStore(options.trust) : [];
  const logLines: string[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => logLines.push(line) });
  const t = await createTestSensor({
    unit: { firmwarePolicy: new FirmwarePolicy(keys, options.minVersion), logger },
  });
  cleanup.push(async () => {
    await t.close();
    removeDir(t.dataDir);
  });
  const baseUrl = await t.app.listen({ host: '127.0.0.1', port: 0 });
  return { t, baseUrl, logLines };
}

/** Everything a refused upload must leave as it was: slot files (no temporary), slot state, fw. */
function snapshot(u: Unit) {
  const files = slotFilesDigest(u.t.hal.firmware.slotDirectory);
  return { files, state: structuredClone(u.t.sensor.firmware.slotState), status: u.t.sensor.firmware.status };
}

const payload = generatedPayload('signed', 200_000);
const signedBy = (...keys: KeyObject[]) => buildImage(NEW_REV, payload, {}, keys);

/** The offset of the signature block's length field: right after the header (its length is at byte 10). */
const signatureBlockAt = (image: Buffer) => image.readUInt16BE(10);

/** Rewrites the header digest after a header change, as someone forging an image would. */
function withHeaderDigest(image: Buffer): Buffer {
  const headerLength = image.readUInt16BE(10);
  createHash('sha256')
    .update(image.subarray(0, headerLength - 32))
    .digest()
    .copy(image, headerLength - 32);
  return image;
}

async function expectInstalls(u: Unit, image: Buffer, rev = NEW_REV): Promise<void> {
  const result = await uploadFirmware(u.baseUrl, image);
  expect({ status: result.status, body: result.body }).toEqual({ status: 204, body: '' });
  await waitFor(
    async () => {
      const res = await fetch(`${u.baseUrl}/api/v1/system/firmware`);
      return res.status === 200 && ((await res.json()) as { fw: string }).fw === rev;
    },
    10_000,
    `${rev} to run`,
  );
}

describe('a unit with a firmware trust store', () => {
  const refusals: { name: string; image: () => Buffer; type: string; detail: RegExp }[] = [
    { name: 'unsigned', image: () => buildImage(NEW_REV, payload), type: 'firmware-unsigned', detail: /is not signed/ },
    {
      name: 'untrusted key',
      image: () => signedBy(stranger.privateKey),
      type: 'firmware-untrusted',
      detail: /signed only by keys this unit does not trust/,
    },
    {
      name: 'tampered payload',
      image: () => {
        const image = signedBy(keyA.privateKey);
        image[image.length - 1000] ^= 0x01;
        return image;
      },
      type: 'firmware-signature-invalid',
      detail: /payload .* was changed after signing/,
    },
    {
      name: 'tampered header (manifest rewritten, header digest recomputed)',
      image: () => {
        const image = signedBy(keyA.privateKey);
        // The last byte of image_rev: 20250101120000 → …120001, a different build.
        image[54 + NEW_REV.length - 1] = '1'.charCodeAt(0);
        return withHeaderDigest(image);
      },
      type: 'firmware-signature-invalid',
      detail: /does not verify: the image header was changed after signing/,
    },
    {
      name: 'tampered header (one flipped byte)',
      image: () => {
        const image = signedBy(keyA.privateKey);
        image[30] ^= 0x80; // inside the payload digest
        return image;
      },
      type: 'firmware-signature-invalid',
      detail: /does not verify/,
    },
    {
      name: 'truncated signature',
      image: () => {
        const image = signedBy(keyA.privateKey);
        const at = signatureBlockAt(image);
        const blockLength = image.readUInt16BE(at);
        const cut = Buffer.concat([image.subarray(0, at + 2 + blockLength - 1), image.subarray(at + 2 + blockLength)]);
        cut.writeUInt16BE(blockLength - 1, at);
        return cut;
      },
      type: 'firmware-signature-invalid',
      detail: /signature 1 is truncated/,
    },
  ];

  for (const c of refusals) {
    it(`refuses an image that is ${c.name} with 403, installs nothing, and frees the lock at once`, async () => {
      const u = await startUnit({ trust: trustFolder(keyA) });
      const before = snapshot(u);
      const result = await uploadFirmware(u.baseUrl, c.image());
      expect(result.status).toBe(403);
      expect(result.headers['content-type']).toBe('application/json');
      const problem = JSON.parse(result.body);
      expect(problem).toMatchObject({ type: `urn:lidar-sensor:problem:${c.type}`, status: 403 });
      expect(problem.detail).toMatch(c.detail);
      expect(problem.detail).toMatch(/nothing was installed/);
      expect(snapshot(u)).toEqual(before);
      expect(u.t.sensor.power.rebooting).toBe(false);
      // The refusal is in the log, naming the image.
      const refusedLine = u.logLines.map((l) => JSON.parse(l)).find((l) => l.msg.startsWith('firmware image refused'));
      expect(refusedLine).toMatchObject({
        reason: c.type,
        image_rev: expect.stringContaining('ousteros-image-prod-bootes-v3.2.0'),
      });
      // The lock is free: the next good upload is taken at once.
      await expectInstalls(u, signedBy(keyA.privateKey));
    });
  }

  it('names its trusted keys in the diagnostics dump', async () => {
    const trust = trustFolder(keyA, keyB);
    const u = await startUnit({ trust, minVersion: '3.1.0' });
    const section = sensorDumpSections(u.t.sensor).find((s) => s.file === 'firmware.json')!;
    const fingerprints = [keyA, keyB].map((k) => `sha256:${keyFingerprint(createPublicKey(k.publicPem))}`);
    expect(await section.collect()).toEqual({
      commit_pending: false,
      fw: u.t.sensor.firmware.status.fw,
      signatures_required: true,
      trusted_keys: fingerprints.map((fingerprint, i) => ({ fingerprint, file: join(trust, `team-${i}.pem`) })),
      min_version: '3.1.0',
    });
  });

  it('installs and commits an image its trusted key signed', async () => {
    const u = await startUnit({ trust: trustFolder(keyA) });
    await expectInstalls(u, signedBy(keyA.privateKey));
    await waitFor(
      async () => {
        const res = await fetch(`${u.baseUrl}/api/v1/system/firmware`);
        const body = (await res.json()) as { fw: string; commit_pending: boolean };
        return body.fw === NEW_REV && body.commit_pending === false;
      },
      10_000,
      'the signed image to commit',
    );
    expect(u.t.sensor.firmware.slotState).toMatchObject({ primary: 'b', trial: null });
  });

  it('trusts every key of the folder: images of either key, and of both (key rotation), install', async () => {
    const trust = trustFolder(keyA, keyB);
    for (const keys of [[keyA.privateKey], [keyB.privateKey], [stranger.privateKey, keyB.privateKey]]) {
      const u = await startUnit({ trust });
      await expectInstalls(u, signedBy(...keys));
    }
  });

  it('refuses an image older than --firmware-min-version and installs a newer one', async () => {
    const u = await startUnit({ trust: trustFolder(keyA), minVersion: '3.1.0' });
    const before = snapshot(u);
    const result = await uploadFirmware(u.baseUrl, buildImage(OLD_REV, payload, {}, [keyA.privateKey]));
    expect(result.status).toBe(403);
    expect(JSON.parse(result.body)).toMatchObject({
      type: 'urn:lidar-sensor:problem:firmware-too-old',
      detail: expect.stringMatching(/version 3\.0\.0; this unit installs 3\.1\.0 or newer/),
    });
    expect(snapshot(u)).toEqual(before);
    await expectInstalls(u, signedBy(keyA.privateKey));
  });
});

describe('a unit without a trust store', () => {
  it('installs unsigned images as before', async () => {
    const u = await startUnit();
    await expectInstalls(u, buildImage(NEW_REV, payload));
  });

  it('installs unsigned images when the trust folder is empty', async () => {
    const u = await startUnit({ trust: trustFolder() });
    await expectInstalls(u, buildImage(NEW_REV, payload));
  });

  it('installs a signed image too (the signature is not checked)', async () => {
    const u = await startUnit();
    await expectInstalls(u, signedBy(stranger.privateKey));
  });
});
