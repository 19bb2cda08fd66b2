/** A firmware 3.2 unit streaming lidar and zone packets to two captures of the test's own (the zone data-plane tests). */
import { expect } from 'vitest';
import { createTestSensor, removeDir, type TestSensor } from '../helpers/test-sensor.js';
import { UdpCapture } from '../udp/helpers/udp-capture.js';
import { zoneStreamConfig } from './zone-set-zips.js';

export interface ZoneStreamingUnit {
  unit: TestSensor;
  lidar: UdpCapture;
  zones: UdpCapture;
}

/** An OS-1-32 of firmware 3.2 at 512x20, its lidar packets to `lidar` and its zone packets to `zones`. */
export async function zoneStreamingUnit(): Promise<ZoneStreamingUnit> {
  const unit = await createTestSensor({ product: 'OS-1-32', unit: { firmwareVersion: '3.2' } });
  const zones = await UdpCapture.listen();
  const lidar = await UdpCapture.listen();
  const config = await unit.app.inject({
    method: 'POST',
    url: '/api/v1/sensor/config',
    payload: zoneStreamConfig(lidar.port, zones.port, '512x20'),
  });
  expect(config.statusCode, config.body).toBe(204);
  return { unit, lidar, zones };
}

export async function closeZoneStreamingUnit({ unit, lidar, zones }: ZoneStreamingUnit): Promise<void> {
  await zones.close();
  await lidar.close();
  await unit.close();
  removeDir(unit.dataDir);
}
