/**
 * The page's Zone Monitor card in a real browser (chromium via playwright-core) against the built CLI: hidden on a
 * firmware 3.1 unit (a stack card's own display rule used to override its `hidden`), shown on a 3.2 unit with no
 * set saying so, and with the repository's sample set applied, each live zone's state as the zone packets carry it,
 * updated live: clear, then triggered by the fault plane's object, then clear again once the object has gone.
 */
import { createSocket, type Socket } from 'node:dgram';
import { readFileSync, rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startCli, type CliProcess } from '../helpers/cli-process.js';
import { browserSkipReason, launchBrowser, openPage } from './browser.js';

const DEADLINE = { timeout: 20_000 };
const HOST = '127.0.0.62';
const SAMPLE_SET = resolve(import.meta.dirname, '../fixtures/zone-sets/front-box.zip');
/** A box in the sample set's zone (1..2 m in front of the unit), as docs/zone-monitor.md puts it there. */
const OBJECT = { type: 'object', size_m: [0.4, 0.4, 0.4], position_m: [1.5, 0, 0] };

const skipReason = browserSkipReason();
if (skipReason) console.log(`skipping the zone card browser tests: ${skipReason}`);

async function receiver(): Promise<Socket> {
  const s = createSocket('udp4');
  await new Promise<void>((r) => s.bind(0, HOST, () => r()));
  return s;
}

describe.skipIf(skipReason)("the page's Zone Monitor card", () => {
  let browser: Browser;
  const units: CliProcess[] = [];
  const sockets: Socket[] = [];
  const shots = mkdtempSync(join(tmpdir(), 'sensor-zone-shots-'));

  beforeAll(async () => {
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    for (const s of sockets) s.close();
    for (const unit of units) {
      await unit.stop();
      rmSync(unit.dataDir, { recursive: true, force: true });
    }
    if (process.env.KEEP_SCREENSHOTS !== '1') rmSync(shots, { recursive: true, force: true });
  });

  async function open(unit: CliProcess): Promise<Page> {
    const page = await openPage(browser, unit.baseUrl);
    await page.locator('#image-state').waitFor(DEADLINE);
    return page;
  }

  it('is hidden where the firmware has no Zone Monitor (3.1)', async () => {
    const unit = await startCli({ host: HOST });
    units.push(unit);
    const page = await open(unit);
    // The card's content loads with the other cards; give the page its first round of requests.
    await page.waitForResponse((r) => r.url().endsWith('/web/api/zones'), DEADLINE);
    await expect.poll(() => page.locator('#zones').isVisible()).toBe(false);
    expect(await page.locator('#time-network').isVisible()).toBe(true);
  });

  it("shows each live zone's state from the zone packets, triggered by the fault plane's object", async () => {
    const controlPort = await freePort();
    const unit = await startCli({
      host: HOST,
      args: ['--firmware-version', '3.2', '--product', 'OS-1-32', '--control', `127.0.0.1:${controlPort}`],
    });
    units.push(unit);
    const [lidar, zones] = [await receiver(), await receiver()];
    sockets.push(lidar, zones);
    const page = await open(unit);
    await expect.poll(() => page.locator('#zones').isVisible(), DEADLINE).toBe(true);
    expect(await page.locator('#zone-set-label').textContent()).toBe('no zone set active');

    const api = (path: string, init?: RequestInit) => fetch(`${unit.baseUrl}/api/v1${path}`, init);
    const config = await api('/sensor/config', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        udp_dest: HOST,
        udp_port_lidar: lidar.address().port,
        udp_port_imu: 0,
        udp_dest_zm: HOST,
        udp_port_zm: zones.address().port,
        lidar_mode: '512x20',
      }),
    });
    expect(config.status).toBe(204);
    const staged = await api('/zone_monitor/staged/zip', {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: readFileSync(SAMPLE_SET),
    });
    expect(staged.status, await staged.text()).toBe(204);
    expect((await api('/zone_monitor/apply', { method: 'POST' })).status).toBe(204);

    const zone = page.locator('#zone-list li[data-zone="0"]');
    await expect.poll(() => zone.getAttribute('data-state'), DEADLINE).toBe('clear');
    expect(await zone.textContent()).toContain('front box');

    const added = await fetch(`http://127.0.0.1:${controlPort}/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ selector: { plane: 'unit' }, action: OBJECT }),
    });
    expect(added.status, await added.clone().text()).toBe(201);
    const { id } = (await added.json()) as { id: string };
    await expect.poll(() => zone.getAttribute('data-state'), DEADLINE).toBe('triggered');
    expect(await zone.locator('.zone-state').textContent()).toBe('triggered');
    await page.screenshot({ path: join(shots, 'zone-triggered.png'), fullPage: true });

    expect((await fetch(`http://127.0.0.1:${controlPort}/faults/${id}`, { method: 'DELETE' })).status).toBe(204);
    await expect.poll(() => zone.getAttribute('data-state'), DEADLINE).toBe('clear');
  }, 90_000);
});
