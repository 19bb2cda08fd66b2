/**
 * The trust store as an operator meets it: `npm run firmware-image -- --sign-key` signs, the server
 * started with SENSOR_FIRMWARE_TRUST (and SENSOR_ALLOW_WRITES_FROM) logs the trusted fingerprints,
 * refuses the unsigned image and installs the signed one; a trust folder holding a private key
 * stops the start with one clear line.
 */
import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, startCli, type CliProcess } from '../helpers/cli-process.js';
import { removeDir } from '../helpers/test-sensor.js';
import { uploadFirmware } from './http-upload.js';
import { waitFor } from '../helpers/poll.js';

const REV = 'ousteros-image-prod-bootes-v3.2.0+20250101120000';
const TSX = resolve(import.meta.dirname, '../../node_modules/.bin/tsx');
const SCRIPT = resolve(import.meta.dirname, '../../scripts/firmware-image.ts');

const cleanup: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

function workDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'h35-trust-cli-'));
  cleanup.push(() => removeDir(dir));
  return dir;
}

/** A key pair as `openssl genpkey -algorithm ed25519` and `openssl pkey -pubout` write them (PKCS#8, SPKI PEM). */
function writeKeyPair(dir: string, name: string): { privateFile: string; publicFile: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const privateFile = join(dir, `${name}.key`);
  const publicFile = join(dir, `${name}.pem`);
  writeFileSync(privateFile, privateKey.export({ type: 'pkcs8', format: 'pem' }));
  writeFileSync(publicFile, publicKey.export({ type: 'spki', format: 'pem' }));
  return { privateFile, publicFile };
}

async function firmwareImage(out: string, ...extra: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(TSX, [
    SCRIPT,
    '--rev',
    REV,
    '--out',
    out,
    '--payload-size',
    '50000',
    ...extra,
  ]);
  return stdout;
}

describe('firmware trust from the command line', () => {
  it('signs with --sign-key, logs the trusted fingerprints, refuses unsigned and installs signed', async () => {
    const dir = workDir();
    const keys = join(dir, 'keys');
    const trust = join(dir, 'trust');
    mkdirSync(keys);
    mkdirSync(trust);
    const { privateFile, publicFile } = writeKeyPair(keys, 'release');
    writeFileSync(join(trust, 'release.pem'), readFileSync(publicFile));

    const signedOut = await firmwareImage(join(dir, 'signed.img'), '--sign-key', privateFile);
    const fingerprint = /signed by key (sha256:[0-9a-f]{64})/.exec(signedOut)?.[1];
    expect(fingerprint).toBeDefined();
    await firmwareImage(join(dir, 'unsigned.img'));

    const cli: CliProcess = await startCli({
      args: ['--log-level', 'info'],
      env: { SENSOR_FIRMWARE_TRUST: trust, SENSOR_ALLOW_WRITES_FROM: '127.0.0.0/8' },
    });
    cleanup.push(() => cli.stop());
    const startLine = cli
      .output()
      .split('\n')
      .find((line) => line.includes('trusted key'));
    expect(startLine).toContain(fingerprint);
    expect(startLine).toContain('must be signed by one of 1 trusted key');

    const refused = await uploadFirmware(cli.baseUrl, readFileSync(join(dir, 'unsigned.img')));
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body).type).toBe('urn:lidar-sensor:problem:firmware-unsigned');
    await waitFor(() => cli.output().includes('firmware image refused'), 5000, 'the refusal in the log');
    expect(cli.output()).toContain(REV);

    expect((await uploadFirmware(cli.baseUrl, readFileSync(join(dir, 'signed.img')))).status).toBe(204);
    await waitFor(
      async () => {
        const res = await fetch(`${cli.baseUrl}/api/v1/system/firmware`);
        return res.status === 200 && ((await res.json()) as { fw: string }).fw === REV;
      },
      15_000,
      'the signed image to run',
    );
  });

  it('refuses to start when the trust folder holds a private key (one clear line, exit 2)', async () => {
    const dir = workDir();
    const { privateFile } = writeKeyPair(dir, 'oops');
    writeFileSync(join(dir, 'oops-private.pem'), readFileSync(privateFile));
    const dataDir = workDir();
    const result = await runCli(['--port', '0', '--data-dir', dataDir, '--firmware-trust', dir]);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/--firmware-trust: .*oops-private\.pem holds a private key/);
  });

  it('refuses a malformed --allow-writes-from (exit 2)', async () => {
    const result = await runCli(['--port', '0', '--allow-writes-from', '10.0.0.0/33']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--allow-writes-from: .*prefix length must be 0\.\.32/);
  });
});
