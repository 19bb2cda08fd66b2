/**
 * The live view of the page in a real browser (chromium via playwright-core) on a unit replaying the
 * firmware 2.0 LEGACY recording: fresh (no udp_dest) it says why nothing is sent and offers "Stream to
 * this computer"; one click later it shows the recording's frames. Screenshots go to a temporary
 * folder, or with UPDATE_SCREENSHOTS=1 to docs/screenshots/.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCli, type CliProcess } from '../helpers/cli-process.js';
import { OS2_LEGACY } from '../replay/helpers/pcap-reference.js';
import { browserSkipReason, launchBrowser } from './browser.js';

const skipReason = browserSkipReason();
const SCREENSHOTS =
  process.env.UPDATE_SCREENSHOTS === '1'
    ? resolve(import.meta.dirname, '../../docs/screenshots')
    : mkdtempSync(join(tmpdir(), 'sensor-live-shots-'));

describe.skipIf(skipReason)('the live view of a replaying unit, in a browser', () => {
  let cli: CliProcess;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    cli = await startCli({ host: '127.0.0.62', args: ['--replay', `${OS2_LEGACY}.pcap`, '--replay-loop'] });
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await cli?.stop();
  });

  it('says at once why nothing is sent, offers "Stream to this computer", then shows the frames', async () => {
    const opened = performance.now();
    await page.goto(cli.baseUrl);
    const state = page.locator('#image-state');
    await expect.poll(() => state.getAttribute('data-state'), { timeout: 10_000 }).toBe('idle-no-destination');
    console.log(`live page: reason shown ${(performance.now() - opened).toFixed(0)} ms after navigation began`);
    expect(await state.textContent()).toMatch(/udp_dest is not set/);
    const offer = page.locator('#live-stream-here');
    expect(await offer.isVisible()).toBe(true);
    await page.locator('#live').screenshot({ path: join(SCREENSHOTS, 'live-idle.png') });

    await offer.click();
    await expect.poll(() => state.getAttribute('data-state'), { timeout: 10_000 }).toBe('streaming');
    expect(await offer.isVisible()).toBe(false);
    expect(await page.locator('#image-size').textContent()).toMatch(/256 × 32 px/);
    const config = (await (await fetch(`${cli.baseUrl}/api/v1/sensor/config`)).json()) as Record<string, unknown>;
    // @auto: the address the page talks from (the browser connects from 127.0.0.1).
    expect([config.udp_dest, config.udp_profile_lidar]).toEqual(['127.0.0.1', 'LEGACY']);
    // Some of the picture is lit: the recording's ranges, not a black image.
    const lit = await page.evaluate<number>(`(() => {
      const canvas = document.getElementById('range-image');
      const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
      let n = 0;
      for (let i = 0; i < data.length; i += 4) if (data[i] + data[i + 1] + data[i + 2] > 0) n++;
      return n;
    })()`);
    expect(lit).toBeGreaterThan(0);
    await page.locator('#live').screenshot({ path: join(SCREENSHOTS, 'live-replay.png') });
    console.log(`live page screenshots: ${SCREENSHOTS}`);
  });
});
