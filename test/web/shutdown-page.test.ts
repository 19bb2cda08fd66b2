/**
 * The web page in a real browser (chromium via playwright-core) while the unit is at a shutdown level: the
 * fault plane (over its control HTTP API) drops the input voltage below the shutdown level, and the page shows
 * ERROR, the active shutdown alert and, in the live view, why no data comes; restored, RUNNING again.
 * The screenshot goes to a temporary folder, or with UPDATE_SCREENSHOTS=1 to docs/screenshots/.
 */
import type { Socket } from 'node:dgram';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startCli, type CliProcess } from '../helpers/cli-process.js';
import { browserSkipReason, launchBrowser, openPage, streamToReceiver } from './browser.js';

/** How long the page may take to show what the unit says (a deadline to poll against, not a speed target). */
const DEADLINE = { timeout: 15_000 };
const HOST = '127.0.0.62';
const INPUT_VOLTAGE_LOW_ERROR = '0x0100002F';

const skipReason = browserSkipReason();
const SCREENSHOTS =
  process.env.UPDATE_SCREENSHOTS === '1'
    ? resolve(import.meta.dirname, '../../docs/screenshots')
    : (process.env.SCREENSHOT_DIR ?? mkdtempSync(join(tmpdir(), 'sensor-shots-')));

describe.skipIf(skipReason)('web page of a unit at a shutdown level', () => {
  let cli: CliProcess;
  let control: string;
  let browser: Browser;
  let page: Page;
  let receiver: Socket;

  beforeAll(async () => {
    const controlPort = await freePort();
    control = `http://127.0.0.1:${controlPort}`;
    cli = await startCli({ host: HOST, args: ['--control', `127.0.0.1:${controlPort}`] });
    receiver = await streamToReceiver(cli.baseUrl, HOST);
    browser = await launchBrowser();
    page = await openPage(browser, cli.baseUrl);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    receiver?.close();
    await cli?.stop();
    if (cli) rmSync(cli.dataDir, { recursive: true, force: true });
    if (process.env.UPDATE_SCREENSHOTS !== '1' && !process.env.SCREENSHOT_DIR)
      rmSync(SCREENSHOTS, { recursive: true, force: true });
  });

  it('shows ERROR, the shutdown alert and why no data comes; RUNNING again once the voltage is back', async () => {
    await expect.poll(() => page.locator('#status').textContent(), DEADLINE).toBe('RUNNING');
    const added = await fetch(`${control}/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ selector: { plane: 'unit' }, action: { type: 'voltage', supply_mv: 18_000 } }),
    });
    expect(added.status).toBe(201);
    const { id } = (await added.json()) as { id: string };

    await expect.poll(() => page.locator('#status').textContent(), DEADLINE).toBe('ERROR');
    expect(await page.locator('#status').getAttribute('class')).toContain('ERROR');
    await page.locator(`#alerts-active li[data-id="${INPUT_VOLTAGE_LOW_ERROR}"]`).waitFor(DEADLINE);
    expect(await page.locator(`#alerts-active li[data-id="${INPUT_VOLTAGE_LOW_ERROR}"]`).textContent()).toContain(
      'ERROR',
    );
    await expect.poll(() => page.locator('#image-state').getAttribute('data-state'), DEADLINE).toBe('idle-shutdown');
    expect(await page.locator('#image-state').textContent()).toMatch(/shutting down.*starts again by itself/);
    await page.screenshot({ path: join(SCREENSHOTS, 'shutdown.png'), fullPage: false });

    expect((await fetch(`${control}/faults/${id}`, { method: 'DELETE' })).status).toBe(204);
    await expect.poll(() => page.locator('#status').textContent(), DEADLINE).toBe('RUNNING');
  });
});
