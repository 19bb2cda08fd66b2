/**
 * The rule the vendor's clients apply (SDK >= 1.0, ouster-ros): a datagram counts only when its source is the
 * address the client talks HTTP to. On loopback the mismatch a NAT makes can be built without one: a unit that
 * listens on every address (`--host 0.0.0.0`, as in a container) and is reached at 127.0.0.2 sends its UDP to
 * the client (127.0.0.1) from 127.0.0.1. The validator's check and the page must both say so, naming the two
 * addresses, and must stay quiet when the client reaches the unit where its data comes from.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_PATH, type CliProcess, startCli } from '../helpers/cli-process.js';
import { browserSkipReason, launchBrowser, openPage } from '../web/browser.js';

const run = promisify(execFile);
/** Screenshots to look at: the page's note where it offers to stream here. */
const SHOTS = mkdtempSync(join(tmpdir(), 'udp-source-shots-'));

let unit: CliProcess;
/** The same unit reached at the address its data to this machine leaves from, and at another one. */
let direct: string;
let elsewhere: string;

beforeAll(async () => {
  unit = await startCli({ host: '0.0.0.0', args: ['--no-mdns'] });
  direct = `http://127.0.0.1:${unit.port}`;
  elsewhere = `http://127.0.0.2:${unit.port}`;
});
afterAll(() => unit?.kill());

async function validate(baseUrl: string) {
  const report = join(mkdtempSync(join(tmpdir(), 'udp-source-')), 'report.json');
  const outcome = await run(process.execPath, [
    CLI_PATH,
    'validate',
    baseUrl,
    '--allow-changes',
    '--udp-timeout',
    '1',
    '--json',
    report,
  ]).catch((error: { stdout: string }) => error);
  const checks = (
    JSON.parse(readFileSync(report, 'utf8')) as { checks: { id: string; status: string; detail: string }[] }
  ).checks;
  return { stdout: outcome.stdout, check: checks.find((c) => c.id === 'udp.source-address') };
}

describe('where the data comes from, against where the client talks HTTP', () => {
  it('the unit tells the page the address its UDP to the page leaves from', async () => {
    const answer = (await (await fetch(`${elsewhere}/web/api/udp-source`)).json()) as Record<string, string>;
    expect(answer).toEqual({ client: '127.0.0.1', source: '127.0.0.1' });
  });

  it('validate fails udp.source-address naming both addresses when they differ, and passes when they agree', async () => {
    const mismatch = await validate(elsewhere);
    expect(mismatch.check?.status, mismatch.stdout).toBe('FAIL');
    expect(mismatch.check?.detail).toMatch(
      /^HTTP to 127\.0\.0\.2, UDP from 127\.0\.0\.1: .+ reach the unit at 127\.0\.0\.1/,
    );
    const agreed = await validate(direct);
    expect(agreed.check?.status, agreed.stdout).toBe('PASS');
    expect(agreed.check?.detail).toMatch(/^\d+ datagrams from 127\.0\.0\.1$/);
  });

  describe.skipIf(browserSkipReason() !== undefined)('the page', () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await launchBrowser();
    });
    afterAll(() => browser?.close());

    it('says, where it offers to stream here, that a client reaching the unit at 127.0.0.2 gets data from 127.0.0.1', async () => {
      const page = await openPage(browser, elsewhere);
      const note = page.locator('#udp-source-note');
      await note.waitFor({ state: 'visible' });
      expect(await note.textContent()).toMatch(
        /reaches the unit at 127\.0\.0\.2, but its lidar and IMU data to this computer leave from 127\.0\.0\.1\..*point them at 127\.0\.0\.1/,
      );
      await page.locator('#config').screenshot({ path: join(SHOTS, 'udp-source-note.png') });
      await page.close();
    });

    it('says nothing when the page reaches the unit where its data comes from', async () => {
      const page = await openPage(browser, direct);
      // The page has asked where its data comes from, and found it here.
      await page.locator('#udp-source-note[data-source="127.0.0.1"]').waitFor({ state: 'attached' });
      expect(await page.locator('#udp-source-note').isHidden()).toBe(true);
      await page.close();
    });
  });
});
