/**
 * The Linux time HAL against a real chronyd: an NTP server (chronyd, local stratum 8) in one
 * namespace, the sensor's chronyd in the other syncing to it over the veth pair, both started with
 * -x (never touch the clock) and without CAP_SYS_TIME, each with its own configuration, pid file and
 * command socket. GET /api/v1/time/system reads tracking through chronyc. Root only.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LinuxTime } from '../../src/hal/linux/time-linux.js';
import { parseChronyTracking } from '../../src/hal/linux/chrony-tracking.js';
import { NetnsPair, netnsSkipReason, run } from '../helpers/netns.js';
import { createTestSensor, type TestSensor } from '../helpers/test-sensor.js';
import { waitFor } from '../helpers/poll.js';

const skipReason = netnsSkipReason(['chronyd', 'chronyc']);
if (skipReason) console.log(`skipping the chronyd namespace tests: ${skipReason}`);

describe.skipIf(skipReason)('tracking from a real chronyd (network namespaces)', () => {
  let pair: NetnsPair;
  let dir: string;
  let unit: TestSensor;
  let socket: string;

  beforeAll(async () => {
    pair = NetnsPair.create('chrony', { a: ['192.0.2.1/24'], b: ['192.0.2.2/24'] });
    dir = mkdtempSync(join(tmpdir(), 'sensor-chrony-'));
    // chronyd refuses a command socket in a directory others can write to; mkdtemp's is 0700.
    const runDir = join(dir, 'run');
    mkdirSync(runDir, { mode: 0o700 });
    socket = join(runDir, 'sensor.sock');
    const server = join(dir, 'server.conf');
    writeFileSync(
      server,
      [
        'local stratum 8',
        'allow 192.0.2.0/24',
        'bindaddress 192.0.2.1',
        'cmdport 0',
        `bindcmdaddress ${join(runDir, 'server.sock')}`,
        `pidfile ${join(runDir, 'server.pid')}`,
        '',
      ].join('\n'),
    );
    const client = join(dir, 'sensor.conf');
    writeFileSync(
      client,
      [
        'server 192.0.2.1 iburst minpoll -2 maxpoll -2',
        'port 0',
        'cmdport 0',
        `bindcmdaddress ${socket}`,
        `pidfile ${join(runDir, 'sensor.pid')}`,
        '',
      ].join('\n'),
    );
    pair.spawn(pair.a, ['chronyd', '-x', '-d', '-u', 'root', '-f', server], { dropTimeCapability: true });
    pair.spawn(pair.b, ['chronyd', '-x', '-d', '-u', 'root', '-f', client], { dropTimeCapability: true });
    const time = new LinuxTime({
      chronycHost: socket,
      clockIdentity: async () => '000000.fffe.000000',
      log: pino({ level: 'silent' }),
    });
    unit = await createTestSensor({ hal: (defaults) => ({ ...defaults, kind: 'linux', time }) });
  });

  afterAll(async () => {
    await unit?.close();
    await pair?.destroy();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('reports the tracking of the chronyd that follows the NTP server', async () => {
    const system = await waitFor(
      async () => {
        const body = (await unit.app.inject({ url: '/api/v1/time/system' })).json();
        return body.tracking.remote_host === '192.0.2.1' ? body : undefined;
      },
      60_000,
      'chronyd to select 192.0.2.1',
    );
    const { tracking } = system;
    expect(tracking.reference_id).toBe('C0000201'); // 192.0.2.1
    expect(tracking.stratum).toBe(9); // one below the server's local stratum 8
    expect(tracking.leap_status).toBe('normal');
    expect(tracking.ref_time_utc).toBeGreaterThan(0);
    expect(tracking.ref_time_utc).toBeLessThanOrEqual(system.realtime + 1);
    for (const field of [
      'frequency',
      'last_offset',
      'residual_frequency',
      'rms_offset',
      'root_delay',
      'root_dispersion',
      'skew',
      'system_time_offset',
      'update_interval',
    ]) {
      expect(typeof tracking[field], field).toBe('number');
    }
    // The same daemon asked directly agrees on the fields that don't move between two reads.
    const direct = parseChronyTracking(run(['chronyc', '-n', '-c', '-h', socket, 'tracking']));
    expect({ ...tracking, ...pick(direct) }).toEqual(tracking);
  });

  it('reports "not synchronised" when no chronyd answers', async () => {
    const time = new LinuxTime({
      chronycHost: join(dir, 'run', 'nobody.sock'),
      clockIdentity: async () => '000000.fffe.000000',
      log: pino({ level: 'silent' }),
    });
    const tracking = await time.tracking();
    expect(tracking.leap_status).toBe('not synchronised');
    expect(tracking.remote_host).toBe('');
  });
});

function pick(t: ReturnType<typeof parseChronyTracking>) {
  return { reference_id: t.reference_id, remote_host: t.remote_host, stratum: t.stratum, leap_status: t.leap_status };
}
