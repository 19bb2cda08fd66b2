/**
 * The Linux time HAL when its daemons don't answer (not running, or not installed): what it reports
 * instead of failing the request, and its timestamp clocks.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/registry.js';
import { LinuxTime } from '../../src/hal/linux/time-linux.js';

const silent = pino({ level: 'silent' });

function unitWithoutDaemons(dir: string, ptp4lConfig?: string) {
  return new LinuxTime({
    chronycHost: join(dir, 'no-chronyd.sock'),
    ptp4lSocket: join(dir, 'no-ptp4l.sock'),
    ptp4lConfig,
    clockIdentity: async () => 'bc0fa7.fffe.c48ea8',
    log: silent,
  });
}

describe('Linux time HAL without daemons', () => {
  it('reports chrony as not synchronised and the PTP port as DISABLED', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'linux-time-'));
    try {
      const time = unitWithoutDaemons(dir);
      expect(await time.tracking()).toMatchObject({
        reference_id: '00000000',
        remote_host: '',
        leap_status: 'not synchronised',
      });
      const ptp = await time.ptpDataSets();
      expect(ptp.port_data_set.port_state).toBe('DISABLED');
      expect(ptp.parent_data_set.grandmaster_identity).toBe('bc0fa7.fffe.c48ea8');
      expect(ptp.time_status_np.gm_present).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('writes the profile into the configured ptp4l file even while ptp4l is down', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'linux-time-'));
    try {
      const config = join(dir, 'ptp4l.conf');
      const time = unitWithoutDaemons(dir, config);
      await time.applyPtpProfile('gptp');
      expect(readFileSync(config, 'utf8')).toMatch(/^network_transport\s+L2$/m);
      expect((await time.ptpDataSets()).port_data_set.delay_mechanism).toBe(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('stamps with CLOCK_MONOTONIC, counts SYNC_PULSE_IN from the last initialization, and free-runs PTP on UTC', async () => {
    const time = unitWithoutDaemons(tmpdir());
    const config = defaultConfig();
    expect(time.timestampOffsetNs({ ...config, timestamp_mode: 'TIME_FROM_INTERNAL_OSC' })).toBe(0n);
    const beforeInit = process.hrtime.bigint();
    time.markInitialization();
    const start = -time.timestampOffsetNs({ ...config, timestamp_mode: 'TIME_FROM_SYNC_PULSE_IN' });
    expect(start).toBeGreaterThanOrEqual(beforeInit);
    expect(start).toBeLessThanOrEqual(process.hrtime.bigint());
    // Date.now() has millisecond resolution and the realtime anchor is the middle of that millisecond,
    // so the PTP reading is within one millisecond of the wall clock on either side.
    const wallBefore = BigInt(Date.now() - 1) * 1_000_000n;
    const ptp = process.hrtime.bigint() + time.timestampOffsetNs({ ...config, timestamp_mode: 'TIME_FROM_PTP_1588' });
    const wallAfter = BigInt(Date.now() + 1) * 1_000_000n;
    expect(ptp).toBeGreaterThanOrEqual(wallBefore);
    expect(ptp).toBeLessThanOrEqual(wallAfter);
    await time.close();
  });
});
