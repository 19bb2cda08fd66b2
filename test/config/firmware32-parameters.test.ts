/**
 * Firmware 3.2's parameters and metadata keys against the real 3.2.0 unit's metadata
 * (test/fixtures/recordings/imu_zm_no_lidar_0.json): a 3.2 unit has every key it has; a 3.1 unit has none
 * of the 3.2 ones and refuses them as unknown, as a 3.1 unit does.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestSensor, removeDir, type TestSensor } from '../helpers/test-sensor.js';
import { waitFor } from '../helpers/poll.js';

const REAL = JSON.parse(
  readFileSync(resolve(import.meta.dirname, '../fixtures/recordings/imu_zm_no_lidar_0.json'), 'utf8'),
) as Record<string, Record<string, unknown>>;

const FW32_PARAMETERS = [
  'bloom_reduction_optimization',
  'header_type',
  'imu_packets_per_frame',
  'lidar_frame_azimuth_offset',
  'udp_multicast_ttl',
  'udp_multicast_ttl_zm',
];

let unit: TestSensor | undefined;
// Each test's unit is closed and its data directory removed after it.
afterEach(() => unit?.close().then(() => removeDir(unit!.dataDir)));

const metadata = async (u: TestSensor) => {
  await waitFor(() => u.sensor.run.status === 'RUNNING', 10_000, 'the unit to run');
  return (await u.app.inject({ url: '/api/v1/sensor/metadata' })).json() as Record<string, Record<string, unknown>>;
};

describe("firmware 3.2's parameters", () => {
  it("a 3.2 unit's metadata has every key of the real 3.2.0 unit's config_params and data formats", async () => {
    unit = await createTestSensor({ unit: { firmwareVersion: '3.2' } });
    const doc = await metadata(unit);
    for (const section of ['config_params', 'imu_data_format', 'lidar_data_format'])
      expect(Object.keys(doc[section]), section).toEqual(expect.arrayContaining(Object.keys(REAL[section])));
    expect(doc.config_params).toMatchObject({
      bloom_reduction_optimization: 'BALANCED',
      header_type: 'STANDARD',
      imu_packets_per_frame: 8,
      lidar_frame_azimuth_offset: 0,
      udp_multicast_ttl: 1,
      udp_multicast_ttl_zm: 1,
    });
    // lidar_mode 1024x10 by default: 10 frames per second.
    expect(doc.lidar_data_format).toMatchObject({ fps: 10, header_type: 'STANDARD' });
    expect(doc.imu_data_format).toMatchObject({ imu_packets_per_frame: 8 });
    const set = await unit.app.inject({
      method: 'POST',
      url: '/api/v1/sensor/config',
      payload: { udp_profile_imu: 'ACCEL32_GYRO32_NMEA', imu_packets_per_frame: 4 },
    });
    expect(set.statusCode, set.body).toBe(204);
    expect((await metadata(unit)).imu_data_format).toMatchObject({
      imu_measurements_per_packet: 8,
      imu_packets_per_frame: 4,
    });
  });

  it('a 3.1 unit has none of them: GET and metadata leave them out, a POST naming one is refused, changing nothing', async () => {
    unit = await createTestSensor();
    const config = (await unit.app.inject({ url: '/api/v1/sensor/config' })).json();
    for (const name of FW32_PARAMETERS) expect(Object.keys(config)).not.toContain(name);
    const doc = await metadata(unit);
    for (const name of FW32_PARAMETERS) expect(Object.keys(doc.config_params)).not.toContain(name);
    expect(Object.keys(doc.lidar_data_format)).not.toContain('fps');
    expect(Object.keys(doc.lidar_data_format)).not.toContain('header_type');
    expect(Object.keys(doc.imu_data_format)).not.toContain('imu_packets_per_frame');
    const init = unit.sensor.run.initializationId;
    for (const name of FW32_PARAMETERS) {
      const value = REAL.config_params[name];
      const res = await unit.app.inject({ method: 'POST', url: '/api/v1/sensor/config', payload: { [name]: value } });
      expect(res.statusCode, name).toBe(400);
      expect(res.json().detail).toContain(`unknown configuration parameter "${name}"`);
    }
    // Nor the values 3.2 added to older parameters: refused as values a 3.1 unit does not know.
    for (const [name, value] of [
      ['udp_profile_imu', 'ACCEL32_GYRO32_NMEA'],
      ['udp_profile_lidar', 'RNG15_RFL8_NIR8_DUAL'],
      ['udp_profile_lidar', 'RNG15_RFL8_WIN8'],
    ]) {
      const res = await unit.app.inject({ method: 'POST', url: '/api/v1/sensor/config', payload: { [name]: value } });
      expect(res.statusCode, `${name} ${value}`).toBe(400);
      expect(res.json().detail).toContain(`got "${value}"`);
      expect(res.json().detail).not.toContain(`, ${value}`);
    }
    expect(unit.sensor.run.initializationId).toBe(init);
  });

  it('bloom_reduction_optimization is accepted and kept: read back, in the metadata, and after a power cycle', async () => {
    unit = await createTestSensor({ unit: { firmwareVersion: '3.2' } });
    const res = await unit.app.inject({
      method: 'POST',
      url: '/api/v1/sensor/config',
      payload: { bloom_reduction_optimization: 'MINIMIZE_FALSE_POSITIVES' },
    });
    expect(res.statusCode, res.body).toBe(204);
    expect((await metadata(unit)).config_params.bloom_reduction_optimization).toBe('MINIMIZE_FALSE_POSITIVES');
    unit = await unit.reopen();
    const value = (await unit.app.inject({ url: '/api/v1/sensor/config/bloom_reduction_optimization' })).json();
    expect(value).toBe('MINIMIZE_FALSE_POSITIVES');
  });
});
