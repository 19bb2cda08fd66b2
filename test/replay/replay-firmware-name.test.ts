/**
 * A replaying unit names the recording's firmware in every place it reports one: sensor_info's image_rev, and the
 * `firmware` label of /metrics' lidar_sensor_info (which named the unit's own factory build, v3.1.0, while
 * sensor_info said the recorded 3.2.0-rc.7).
 */
import { describe, expect, it } from 'vitest';
import { parseMetrics, samples } from '../helpers/prometheus.js';
import { RECORDINGS } from './helpers/pcap-reference.js';
import { replayUnit } from './helpers/replay-unit.js';

const IMU_ZM = `${RECORDINGS}imu_zm_no_lidar`;

describe('the firmware a replaying unit names', () => {
  it('is the recording’s in sensor_info and in /metrics alike', async () => {
    const u = await replayUnit(IMU_ZM, ['--metadata', `${IMU_ZM}_0.json`]);
    const info = await u.getJson('/api/v1/sensor/metadata/sensor_info');
    expect(info.image_rev).toMatch(/v3\.2\.0-rc\.7/);
    const metrics = parseMetrics(await (await fetch(`${u.server.url}/metrics`)).text());
    expect(samples(metrics, 'lidar_sensor_info')[0]?.labels?.firmware).toBe(info.image_rev);
  });
});
