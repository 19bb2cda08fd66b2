/**
 * A real browser for the web page tests: Debian's chromium driven by playwright-core (no browser
 * download). The tests skip, saying why, only where /usr/bin/chromium is missing; CI installs it.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

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
