/**
 * The ptp4l configuration on a read-only file system (a tmpfs the test mounts and remounts read-only) while
 * the unit's own storage takes writes: a profile change is refused naming that file and why, the profile and
 * the file stay as they were, and the unit's storage state does not move (the database is not to blame).
 * Root only (mount).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LinuxTime } from '../../src/hal/linux/time-linux.js';
import { createTestSensor, type TestSensor } from '../helpers/test-sensor.js';

const skipReason = process.getuid?.() !== 0 ? 'mounting a read-only file system needs root' : undefined;
if (skipReason) console.log(`skipping the read-only ptp4l configuration test: ${skipReason}`);

const json = { 'content-type': 'application/json' };

describe.skipIf(skipReason)('a ptp4l configuration on a read-only file system', () => {
  let dir: string;
  let etc: string;
  let config: string;
  let unit: TestSensor;
  let mounted = false;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sensor-ptp4l-ro-'));
    etc = join(dir, 'etc');
    mkdirSync(etc);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', etc]);
    mounted = true;
    config = join(etc, 'ptp4l.conf');
    writeFileSync(config, '[global]\nuds_address /var/run/ptp4l\n');
    execFileSync('mount', ['-o', 'remount,ro', etc]);
    const time = new LinuxTime({
      ptp4lSocket: join(dir, 'no-ptp4l.sock'),
      chronycHost: join(dir, 'no-chronyd.sock'),
      ptp4lConfig: config,
      clockIdentity: async () => 'bc0fa7.fffe.c48ea8',
      log: pino({ level: 'silent' }),
    });
    unit = await createTestSensor({ hal: (defaults) => ({ ...defaults, kind: 'linux', time }) });
  });

  afterAll(async () => {
    await unit?.close();
    if (mounted) execFileSync('umount', [etc]);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('refuses the profile naming the file and why, and changes nothing', async () => {
    const before = readFileSync(config, 'utf8');
    const res = await unit.app.inject({
      method: 'PUT',
      url: '/api/v1/time/ptp/profile',
      payload: '"gptp"',
      headers: json,
    });
    expect(res.statusCode).toBe(503);
    const problem = res.json();
    expect(problem.type).toBe('urn:lidar-sensor:problem:system-file');
    expect(problem.detail).toContain(config);
    expect(problem.detail).toContain('EROFS');
    expect(problem.detail).not.toMatch(/unit's storage/);
    expect(readFileSync(config, 'utf8')).toBe(before);
    expect((await unit.app.inject({ url: '/api/v1/time/ptp/profile' })).json()).toBe('default');
    expect((await unit.app.inject({ url: '/api/v1/time/ptp' })).json().profile).toBe('default');
  });

  it("leaves the unit's own storage state alone: its writes are stored", async () => {
    expect(unit.sensor.storage.refusing).toBeUndefined();
    expect(unit.sensor.storage.refused).toEqual({ full: 0, 'read-only': 0, io: 0 });
    const put = await unit.app.inject({
      method: 'POST',
      url: '/api/v1/sensor/config',
      payload: JSON.stringify({ udp_dest: '127.0.0.1' }),
      headers: json,
    });
    expect(put.statusCode).toBe(204);
    const metrics = (await unit.app.inject({ url: '/metrics' })).body;
    expect(metrics).toMatch(/storage_refusing_writes\{cause="read-only"\} 0/);
  });
});
