/**
 * The web page in a real browser (chromium via playwright-core) against the real CLI: the page loads
 * and shows the unit; lidar_mode changed through the generated form is confirmed and the live image's
 * width follows; a bad value shows the server's error next to its field and changes nothing; an alert
 * appears live; a firmware image uploads with progress and the reboot and commit are followed.
 * Screenshots of the main views go to a temporary folder, or with UPDATE_SCREENSHOTS=1 to docs/screenshots/
 * (kept out of ordinary runs so a test run leaves the work tree clean).
 */
import { createSocket, type Socket } from 'node:dgram';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeImageFile } from '../../src/core/firmware/image-builder.js';
import { startCli, type CliProcess } from '../helpers/cli-process.js';
import { browserSkipReason, launchBrowser, streamToReceiver } from './browser.js';

/** How long the page may take to show what the unit says (a deadline to poll against, not a speed target). */
const DEADLINE = { timeout: 15_000 };

const skipReason = browserSkipReason();
if (skipReason) console.log(`skipping the web page browser tests: ${skipReason}`);

const SCREENSHOTS =
  process.env.UPDATE_SCREENSHOTS === '1'
    ? resolve(import.meta.dirname, '../../docs/screenshots')
    : mkdtempSync(join(tmpdir(), 'sensor-shots-'));
const NEW_FW = 'ousteros-image-prod-bootes-v3.2.0+20250101120000';
const HOST = '127.0.0.61';

/** A UDP port with nothing behind it: sends there raise the port-unreachable alerts. */
async function closedUdpPort(): Promise<number> {
  const s = createSocket('udp4');
  await new Promise<void>((r) => s.bind(0, HOST, () => r()));
  const { port } = s.address();
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe.skipIf(skipReason)('web page in a browser', () => {
  let cli: CliProcess;
  let browser: Browser;
  let page: Page;
  let receiver: Socket;
  let workDir: string;

  const api = async (path: string, init?: RequestInit) => fetch(`${cli.baseUrl}/api/v1${path}`, init);
  const config = async () => (await (await api('/sensor/config')).json()) as Record<string, unknown>;
  const imageWidth = () => page.locator('#image-size').getAttribute('data-width');

  beforeAll(async () => {
    workDir = mkdtempSync(join(tmpdir(), 'sensor-web-'));
    cli = await startCli({ host: HOST });
    // The lidar stream goes to a socket of ours (no alert); the IMU stream is off.
    receiver = await streamToReceiver(cli.baseUrl, HOST);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${cli.baseUrl}/`);
    expect(errors).toEqual([]);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    receiver?.close();
    await cli?.stop();
    if (workDir) rmSync(workDir, { recursive: true, force: true });
    if (cli) rmSync(cli.dataDir, { recursive: true, force: true });
    if (process.env.UPDATE_SCREENSHOTS !== '1') rmSync(SCREENSHOTS, { recursive: true, force: true });
  });

  it('shows the unit, its firmware, a form field per parameter and the live image', async () => {
    await expect.poll(() => page.locator('#status').textContent(), DEADLINE).toBe('RUNNING');
    const info = (await (await api('/sensor/metadata/sensor_info')).json()) as Record<string, string>;
    expect(await page.locator('#serial').textContent()).toContain(info.prod_sn);
    expect(await page.locator('#firmware').textContent()).toBe(info.image_rev);
    expect(await page.locator('#commit-pending').textContent()).toBe('false');
    expect(await page.locator('#config-fields label').count()).toBe(Object.keys(await config()).length);
    // 1024 columns, every 4th: 256 wide.
    await expect.poll(imageWidth, { timeout: 10_000 }).toBe('256');
    await expect.poll(() => page.locator('#telemetry-now').textContent(), DEADLINE).toContain('°C');

    // Browser-side code as text: this file is type-checked without the DOM library.
    const timing = await page.evaluate<{ firstContentfulPaintMs?: number; pageBytes: number }>(`(() => {
      const paint = performance.getEntriesByName('first-contentful-paint')[0]?.startTime;
      const nav = performance.getEntriesByType('navigation')[0];
      const assets = [nav, ...performance.getEntriesByType('resource').filter((r) => r.name.includes('/web/') && !r.name.includes('/web/api/'))];
      return { firstContentfulPaintMs: paint, pageBytes: assets.reduce((sum, r) => sum + r.encodedBodySize, 0) };
    })()`);
    console.log(
      `web page: first contentful paint ${timing.firstContentfulPaintMs?.toFixed(0)} ms, page weight ${(timing.pageBytes / 1024).toFixed(1)} KB`,
    );
    await page.screenshot({ path: join(SCREENSHOTS, 'overview.png'), fullPage: true });
  });

  it('changes lidar_mode through the form: confirmed, and the live image gets wider', async () => {
    await page.selectOption('#cfg-lidar_mode', JSON.stringify('2048x10'));
    await page.click('#config-apply');
    await expect.poll(() => page.locator('#config-result').textContent(), DEADLINE).toContain('lidar_mode = "2048x10"');
    expect((await config()).lidar_mode).toBe('2048x10');
    await expect.poll(imageWidth, { timeout: 10_000 }).toBe('512');
    await page.locator('#live').screenshot({ path: join(SCREENSHOTS, 'live-image.png') });
  });

  it("shows the server's error next to a bad field and changes nothing", async () => {
    const before = await config();
    await page.fill('#cfg-udp_port_lidar', '70000');
    await page.click('#config-apply');
    await expect
      .poll(() => page.locator('#err-udp_port_lidar').textContent(), DEADLINE)
      .toContain('must be between 0 and 65535');
    expect(await page.locator('#config-error').textContent()).toContain('400');
    expect(await config()).toEqual(before);
    await page.locator('#field-udp_port_lidar').scrollIntoViewIfNeeded();
    await page.locator('#config').screenshot({ path: join(SCREENSHOTS, 'config-error.png') });
    await page.click('#config-reset');
    await expect.poll(() => page.locator('#config-result').textContent(), DEADLINE).toContain('Form reset');
    expect(await page.locator('#err-udp_port_lidar').textContent()).toBe('');
    expect(await page.inputValue('#cfg-udp_port_lidar')).toBe(String(before.udp_port_lidar));
  });

  it('shows an alert as it is raised, in the active list and the history', async () => {
    await page.fill('#cfg-udp_port_imu', String(await closedUdpPort()));
    await page.click('#config-apply');
    await expect.poll(() => page.locator('#config-result').textContent(), DEADLINE).toContain('udp_port_imu');
    // IMU_PORT_UNREACHABLE: the IMU packets now go to a port nobody listens on.
    const active = page.locator('#alerts-active li[data-id="0x01000018"]');
    await active.waitFor({ timeout: 10_000 });
    expect(await active.textContent()).toContain('WARNING');
    expect(await page.locator('#alerts-log li[data-id="0x01000018"]').first().textContent()).toContain('TRIGGER');
    await page.locator('#alerts').screenshot({ path: join(SCREENSHOTS, 'alerts.png') });
  });

  it('uploads a firmware image with progress and follows the reboot to the commit', async () => {
    const image = join(workDir, 'fw.img');
    await writeImageFile({ imageRev: NEW_FW, out: image, payloadSize: 4 * 1024 * 1024 });
    await page.setInputFiles('#firmware-file', image);
    await page.click('#firmware-upload');
    const steps = page.locator('#firmware-steps');
    await expect.poll(() => steps.textContent(), { timeout: 30_000 }).toContain(`Committed: now running ${NEW_FW}`);
    expect(await page.locator('#firmware-progress').evaluate((p) => (p as unknown as { value: number }).value)).toBe(
      100,
    );
    const text = (await steps.textContent()) ?? '';
    expect(text).toContain('verified');
    expect(text).toMatch(/Unit: (UPDATING|unreachable)/);
    expect(await page.locator('#firmware').textContent()).toBe(NEW_FW);
    expect(await (await api('/system/firmware')).json()).toEqual({ commit_pending: false, fw: NEW_FW });
    await page.locator('#firmware-update').screenshot({ path: join(SCREENSHOTS, 'firmware-update.png') });
  });
});
