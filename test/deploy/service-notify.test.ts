/**
 * The sd_notify messages of the device unit (src/main/service-notify.ts), sent through a stand-in for systemd-notify
 * that records its arguments: nothing without NOTIFY_SOCKET; READY=1 then WATCHDOG=1 at half of WATCHDOG_USEC;
 * STOPPING=1 ends the pings. The real systemd-notify under systemd runs in test/deployments/device.test.ts.
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createServiceNotifier, watchdogPingMs } from '../../src/main/service-notify.js';
import { waitFor } from '../helpers/poll.js';

let dir = '';
let log = '';
let command = '';
const sent = (): string[] => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : []);

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'notify-'));
  log = join(dir, 'sent.log');
  command = join(dir, 'fake-systemd-notify');
  writeFileSync(command, `#!/bin/sh\necho "$NOTIFY_SOCKET $*" >> '${log}'\n`);
  chmodSync(command, 0o755);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('the systemd notifier', () => {
  it('sends nothing without NOTIFY_SOCKET (npm start, Docker)', async () => {
    const notifier = createServiceNotifier({ env: { WATCHDOG_USEC: '1000' }, command });
    notifier.ready('serving');
    notifier.stopping();
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent()).toEqual([]);
  });

  it('sends READY=1, pings WATCHDOG=1 from the event loop, and STOPPING=1 ends the pings', async () => {
    const env = { NOTIFY_SOCKET: '/run/fake/notify', WATCHDOG_USEC: '100000', WATCHDOG_PID: String(process.pid) };
    const errors: Error[] = [];
    const notifier = createServiceNotifier({ env, command, onError: (error) => errors.push(error) });
    notifier.ready('serving http://127.0.0.1:80');
    await waitFor(() => sent().filter((line) => line.endsWith(' WATCHDOG=1')).length >= 3, 10_000, 'three pings');
    expect(sent()).toContain('/run/fake/notify READY=1 STATUS=serving http://127.0.0.1:80 WATCHDOG=1');
    notifier.stopping();
    await waitFor(() => sent().includes('/run/fake/notify STOPPING=1'), 10_000, 'STOPPING=1');
    const count = sent().length;
    // Two ping intervals later: no ping after STOPPING=1.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(sent().length).toBe(count);
    expect(errors).toEqual([]);
  });

  it('reports a sender that fails, without throwing', async () => {
    const errors: Error[] = [];
    const notifier = createServiceNotifier({
      env: { NOTIFY_SOCKET: '/run/fake/notify' },
      command: join(dir, 'missing'),
      onError: (error) => errors.push(error),
    });
    notifier.ready('serving');
    await waitFor(() => errors.length === 1, 10_000, 'the error');
    expect(errors[0].message).toMatch(/READY=1/);
  });
});

describe('the watchdog interval', () => {
  it('is half of WATCHDOG_USEC, and off for another process or without it', () => {
    expect(watchdogPingMs({ WATCHDOG_USEC: '10000000' }, 42)).toBe(5000);
    expect(watchdogPingMs({ WATCHDOG_USEC: '10000000', WATCHDOG_PID: '42' }, 42)).toBe(5000);
    expect(watchdogPingMs({ WATCHDOG_USEC: '10000000', WATCHDOG_PID: '7' }, 42)).toBeUndefined();
    expect(watchdogPingMs({}, 42)).toBeUndefined();
    expect(watchdogPingMs({ WATCHDOG_USEC: 'soon' }, 42)).toBeUndefined();
  });
});
