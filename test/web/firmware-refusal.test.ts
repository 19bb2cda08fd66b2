/**
 * The web page's firmware upload on a unit with a trust store, in a real browser (chromium via
 * playwright-core, as page.test.ts): an unsigned image is refused and the page shows why (the
 * problem's title and detail); a signed one then installs. Screenshot: firmware-refused.png.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeImageFile } from '../../src/core/firmware/image-builder.js';
import { startCli, type CliProcess } from '../helpers/cli-process.js';
import { browserSkipReason, launchBrowser, openPage } from './browser.js';

const skipReason = browserSkipReason();
const SCREENSHOTS =
  process.env.UPDATE_SCREENSHOTS === '1'
    ? resolve(import.meta.dirname, '../../docs/screenshots')
    : mkdtempSync(join(tmpdir(), 'sensor-shots-'));
const NEW_FW = 'ousteros-image-prod-bootes-v3.2.0+20250101120000';
const HOST = '127.0.0.62';

describe.skipIf(skipReason)('web page firmware upload on a unit with a trust store', () => {
  let cli: CliProcess;
  let browser: Browser;
  let page: Page;
  let workDir: string;
  const keys = generateKeyPairSync('ed25519');

  beforeAll(async () => {
    workDir = mkdtempSync(join(tmpdir(), 'sensor-web-trust-'));
    const trust = join(workDir, 'trust');
    mkdirSync(trust);
    writeFileSync(join(trust, 'release.pem'), keys.publicKey.export({ type: 'spki', format: 'pem' }));
    cli = await startCli({ host: HOST, args: ['--firmware-trust', trust] });
    browser = await launchBrowser();
    page = await openPage(browser, cli.baseUrl);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await cli?.stop();
    if (workDir) rmSync(workDir, { recursive: true, force: true });
    if (cli) rmSync(cli.dataDir, { recursive: true, force: true });
    if (process.env.UPDATE_SCREENSHOTS !== '1') rmSync(SCREENSHOTS, { recursive: true, force: true });
  });

  it("shows a refused image's reason, then installs a signed one", async () => {
    const unsigned = join(workDir, 'unsigned.img');
    await writeImageFile({ imageRev: NEW_FW, out: unsigned, payloadSize: 4 * 1024 * 1024 });
    await page.setInputFiles('#firmware-file', unsigned);
    await page.click('#firmware-upload');
    const steps = page.locator('#firmware-steps');
    await expect
      .poll(() => steps.textContent(), { timeout: 30_000 })
      .toContain('Refused (403 Firmware image is not signed)');
    expect(await steps.textContent()).toContain(`firmware image ${NEW_FW} is not signed`);
    expect(await page.locator('#firmware-upload').isDisabled()).toBe(false);
    await page.locator('#firmware-update').screenshot({ path: join(SCREENSHOTS, 'firmware-refused.png') });
    expect(await (await fetch(`${cli.baseUrl}/api/v1/system/firmware`)).json()).toMatchObject({
      commit_pending: false,
    });

    const signed = join(workDir, 'signed.img');
    await writeImageFile({
      imageRev: NEW_FW,
      out: signed,
      payloadSize: 4 * 1024 * 1024,
      signingKeys: [keys.privateKey],
    });
    await page.setInputFiles('#firmware-file', signed);
    await page.click('#firmware-upload');
    await expect.poll(() => steps.textContent(), { timeout: 30_000 }).toContain(`Committed: now running ${NEW_FW}`);
  });
});
