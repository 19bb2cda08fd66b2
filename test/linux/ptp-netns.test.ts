/**
 * The Linux time HAL against two real ptp4l instances with software timestamping: a grandmaster in
 * one namespace, the sensor's ptp4l in the other (its configuration written by the profile writer),
 * and GET /api/v1/time/ptp read through pmc. Root only.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LinuxTime } from '../../src/hal/linux/time-linux.js';
import { writeProfileToPtp4lConfig } from '../../src/hal/linux/ptp4l-config.js';
import { PTP_PROFILES } from '../../src/hal/ptp-profiles.js';
import { RealtimeAnchor } from '../../src/hal/time-models.js';
import { clockIdentityFromMac } from '../../src/model/mac.js';
import { NetnsPair, netnsSkipReason } from '../helpers/netns.js';
import { createTestSensor, type TestSensor } from '../helpers/test-sensor.js';
import { waitFor } from '../helpers/poll.js';

const skipReason = netnsSkipReason(['ptp4l', 'pmc']);
if (skipReason) console.log(`skipping the ptp4l namespace tests: ${skipReason}`);

describe.skipIf(skipReason)('PTP data sets from a real ptp4l (network namespaces)', () => {
  let pair: NetnsPair;
  let dir: string;
  let unit: TestSensor;
  let sensorConfig: string;
  let time: LinuxTime;

  beforeAll(async () => {
    pair = NetnsPair.create('ptp', { a: ['192.0.2.1/24'], b: ['192.0.2.2/24'] });
    dir = mkdtempSync(join(tmpdir(), 'sensor-ptp-'));
    // The grandmaster: the best clock on the link (priority1 1, clockClass 6).
    const gmConfig = join(dir, 'gm.cfg');
    writeFileSync(gmConfig, `[global]\npriority1 1\nclockClass 6\nuds_address ${join(dir, 'gm.sock')}\n`);
    // The sensor's ptp4l: the site's settings, then the managed profile block the HAL writes. The
    // servo constants only make it lock in a few seconds instead of ~16 s; the clock is not adjusted anyway.
    sensorConfig = join(dir, 'sensor.cfg');
    writeFileSync(
      sensorConfig,
      `[global]\nuds_address ${join(dir, 'sensor.sock')}\npi_proportional_const 0.7\npi_integral_const 0.3\n`,
    );
    await writeProfileToPtp4lConfig(sensorConfig, 'default');
    pair.spawn(pair.a, ['ptp4l', '-S', '-i', pair.a.iface, '-f', gmConfig, '-m'], { dropTimeCapability: true });
    pair.spawn(pair.b, ['ptp4l', '-S', '-i', pair.b.iface, '-f', sensorConfig, '-m'], { dropTimeCapability: true });
    time = new LinuxTime({
      ptp4lSocket: join(dir, 'sensor.sock'),
      ptp4lConfig: sensorConfig,
      clockIdentity: async () => clockIdentityFromMac(pair.mac(pair.b)),
      log: pino({ level: 'silent' }),
    });
    unit = await createTestSensor({ hal: (defaults) => ({ ...defaults, kind: 'linux', time }) });
  });

  afterAll(async () => {
    await unit?.close();
    await pair?.destroy();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('reaches SLAVE with the grandmaster identity and gm_present true', async () => {
    const gmIdentity = clockIdentityFromMac(pair.mac(pair.a));
    const ownIdentity = clockIdentityFromMac(pair.mac(pair.b));
    const ptp = await waitFor(
      async () => {
        const res = await unit.app.inject({ url: '/api/v1/time/ptp' });
        const body = res.json();
        return body.port_data_set.port_state === 'SLAVE' && body.time_status_np.gm_present
          ? { body, raw: res.body }
          : undefined;
      },
      90_000,
      'the sensor ptp4l to select the grandmaster (port_state SLAVE)',
    );
    const { body, raw } = ptp;
    expect(body.parent_data_set.grandmaster_identity).toBe(gmIdentity);
    expect(body.parent_data_set.parent_port_identity).toBe(`${gmIdentity}-1`);
    expect(body.parent_data_set.grandmaster_priority1).toBe(1);
    expect(body.parent_data_set.gm_clock_class).toBe(6);
    expect(body.time_status_np.gm_identity).toBe(gmIdentity);
    expect(body.time_status_np.gm_present).toBe(true);
    expect(body.port_data_set.port_identity).toBe(`${ownIdentity}-1`);
    expect(body.current_data_set.steps_removed).toBe(1);
    expect(body.time_properties_data_set.current_utc_offset).toBe(37);
    expect(body.profile).toBe('default');
    // ingress_time is ns since the epoch, beyond 2^53: serialized as an exact integer.
    expect(raw).toMatch(/"ingress_time":[1-9][0-9]{18}[,}]/);
    // With a grandmaster, TIME_FROM_PTP_1588 stamps TAI: the system clock (UTC) + current_utc_offset.
    const ptpClock = time.timestampOffsetNs({
      ...unit.sensor.configs.reported('active'),
      timestamp_mode: 'TIME_FROM_PTP_1588',
    });
    const utc = new RealtimeAnchor().offsetNs();
    expect(Math.round(Number(ptpClock - utc) / 1e9)).toBe(37);
  });

  it('writes a profile into the sensor ptp4l configuration, keeping the site settings', async () => {
    const res = await unit.app.inject({
      method: 'PUT',
      url: '/api/v1/time/ptp/profile',
      payload: '"gptp"',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toBe('gptp');
    const text = readFileSync(sensorConfig, 'utf8');
    expect(text).toContain(`uds_address ${join(dir, 'sensor.sock')}`);
    const block = text.slice(text.indexOf('# BEGIN lidar-sensor PTP profile'));
    expect(block).toMatch(/^network_transport\s+L2$/m);
    expect(block).toMatch(/^transportSpecific\s+0x1$/m);
    expect(block).toMatch(/^delay_mechanism\s+P2P$/m);
    expect(text.match(/# BEGIN lidar-sensor PTP profile/g)).toHaveLength(1);
  });

  it('every profile it writes is a configuration ptp4l accepts', async () => {
    for (const profile of PTP_PROFILES) {
      const config = join(dir, `check-${profile || 'empty'}.cfg`);
      writeFileSync(config, `[global]\nuds_address ${join(dir, `check-${profile || 'empty'}.sock`)}\n`);
      await writeProfileToPtp4lConfig(config, profile);
      const daemon = pair.spawn(pair.a, ['ptp4l', '-S', '-i', pair.a.iface, '-f', config, '-m'], {
        dropTimeCapability: true,
      });
      await waitFor(
        () => {
          if (daemon.child.exitCode !== null)
            throw new Error(`ptp4l refused the ${profile} configuration: ${daemon.output()}`);
          return /INITIALIZING to (LISTENING|SLAVE) on INIT_COMPLETE/.test(daemon.output());
        },
        20_000,
        `ptp4l to start with the ${JSON.stringify(profile)} profile`,
      );
      await pair.stop(daemon.child);
    }
  });
});
