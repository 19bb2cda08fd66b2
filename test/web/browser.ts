/**
 * A real browser for the web page tests: Debian's chromium driven by playwright-core (no browser
 * download). The tests skip, saying why, only where /usr/bin/chromium is missing; CI installs it.
 */
import { existsSync } from 'node:fs';
import { createSocket, type Socket } from 'node:dgram';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

export function browserSkipReason(): string | undefined {
  return existsSync(CHROMIUM) ? undefined : `${CHROMIUM} is not installed (apt-get install -y chromium)`;
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

/** A page of the unit at `baseUrl`, in the viewport every page test and screenshot uses. */
export async function openPage(browser: Browser, baseUrl: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  await page.goto(`${baseUrl}/`);
  return page;
}

/** Points the unit's lidar stream at a socket of the test (no alert) and turns its IMU stream off. */
export async function streamToReceiver(baseUrl: string, host: string): Promise<Socket> {
  const receiver = createSocket('udp4');
  await new Promise<void>((r) => receiver.bind(0, host, () => r()));
  const res = await fetch(`${baseUrl}/api/v1/sensor/config`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ udp_dest: host, udp_port_lidar: receiver.address().port, udp_port_imu: 0 }),
  });
  if (res.status !== 204) throw new Error(`the unit refused the stream configuration: ${res.status}`);
  return receiver;
}
