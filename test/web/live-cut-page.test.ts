/**
 * A page whose computer goes to sleep while it shows the live view (issue 58), in a real browser: the browser's
 * processes are stopped (SIGSTOP) while the unit streams, so they read nothing, as a sleeping laptop's; the unit
 * cuts the stalled stream; when the browser runs again the page says when it was cut off, reconnects and shows
 * pictures again. Screenshots go to a temporary folder.
 */
import { execFileSync } from 'node:child_process';
import type { Socket as UdpSocket } from 'node:dgram';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliProcess, startCli } from '../helpers/cli-process.js';
import { waitFor } from '../helpers/poll.js';
import { browserSkipReason, launchBrowser, streamToReceiver } from './browser.js';

const HOST = '127.0.0.57';
const skipReason = browserSkipReason();
const SCREENSHOTS = mkdtempSync(join(tmpdir(), 'sensor-live-cut-'));

/** Every process below `root`: the browser this test launched and its helpers, nobody else's. */
function descendants(root: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // Field 4 of /proc/PID/stat, after the parenthesised command name.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // The process ended while the list was read.
    }
  }
  const found: number[] = [];
  const walk = (pid: number) => {
    for (const [child, parent] of parents) {
      if (parent !== pid) continue;
      found.push(child);
      walk(child);
    }
  };
  walk(root);
  return found;
}

/** Connections to the unit's port that the kernel still holds open (a stopped browser's included). */
function establishedTo(port: number): number {
  const lines = execFileSync('ss', ['-tnH', 'state', 'established', `( dport = :${port} )`], { encoding: 'utf8' });
  return lines.split('\n').filter((line) => line.trim()).length;
}

describe.skipIf(skipReason)('the live view of a page whose computer sleeps, in a browser', () => {
  let cli: CliProcess;
  let receiver: UdpSocket;
  let browser: Browser;
  let page: Page;
  let stopped: number[] = [];

  beforeAll(async () => {
    cli = await startCli({ host: HOST, args: ['--stall-timeout', '1'] });
    receiver = await streamToReceiver(cli.baseUrl, HOST);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  }, 60_000);

  afterAll(async () => {
    for (const pid of stopped) process.kill(pid, 'SIGCONT');
    await browser?.close();
    receiver?.close();
    await cli?.stop();
  });

  it('says when the unit cut it off, reconnects and shows pictures again', async () => {
    await page.goto(cli.baseUrl);
    const state = page.locator('#image-state');
    await expect.poll(() => state.getAttribute('data-state'), { timeout: 15_000 }).toBe('streaming');

    stopped = descendants(process.pid).filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('chromium');
      } catch {
        return false;
      }
    });
    expect(stopped.length).toBeGreaterThan(0);
    for (const pid of stopped) process.kill(pid, 'SIGSTOP');
    // The unit resets the stream once the sleeping browser has taken nothing for --stall-timeout.
    await waitFor(() => establishedTo(cli.port) === 0, 60_000, "the unit to cut the sleeping browser's connections");
    for (const pid of stopped) process.kill(pid, 'SIGCONT');
    stopped = [];

    await expect.poll(() => state.getAttribute('data-state'), { timeout: 15_000 }).toBe('cut-off');
    expect(await state.textContent()).toMatch(/^Live view cut off at .+; reconnecting…$/);
    await page.locator('#live').screenshot({ path: join(SCREENSHOTS, 'live-cut-off.png') });
    await expect.poll(() => state.getAttribute('data-state'), { timeout: 15_000 }).toBe('streaming');
    const note = page.locator('#live-note');
    expect(await note.isVisible()).toBe(true);
    expect(await note.textContent()).toMatch(/^Cut off at .+; reconnected at .+\.$/);
    await page.locator('#live').screenshot({ path: join(SCREENSHOTS, 'live-reconnected.png') });
    console.log(`live cut page screenshots: ${SCREENSHOTS}`);
  }, 120_000);
});
