/**
 * A stored zone set stays the active one through any lidar_mode change and restart: where its zones do not
 * fit the frame width their slots report so (no images), and where they fit again they are watched again,
 * without a re-apply.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZONE_ERROR_NO_IMAGES } from '../../src/udp/packets/zone-packet.js';
import { waitFor } from '../helpers/poll.js';
import { createTestSensor, removeDir, type TestSensor } from '../helpers/test-sensor.js';
import { UdpCapture } from '../udp/helpers/udp-capture.js';
import { decodeZonePacket, type DecodedZoneState } from './zone-packets.js';
import { stageAndApply, zoneStreamConfig, zrbZoneSetZip } from './zone-set-zips.js';

const SERIAL = '122201000123';
let unit: TestSensor;
let zones: UdpCapture;
let lidar: UdpCapture;

beforeAll(async () => {
  zones = await UdpCapture.listen();
  lidar = await UdpCapture.listen();
});
afterAll(async () => {
  await zones.close();
  await lidar.close();
  await unit?.close();
  if (unit) removeDir(unit.dataDir);
});

const setMode = async (lidar_mode: string) => {
  const res = await unit.app.inject({ method: 'POST', url: '/api/v1/sensor/config', payload: { lidar_mode } });
  expect(res.statusCode, res.body).toBe(204);
};

/** Zone 0's slot in the zone packets of `hash` that arrive from now on, once one arrives. */
async function zone0(hash: Buffer, until: (slot: DecodedZoneState) => boolean): Promise<DecodedZoneState> {
  zones.clear();
  return waitFor(
    () =>
      zones.datagrams
        .map((d) => decodeZonePacket(d.data))
        .filter((p) => p.hash.equals(hash))
        .map((p) => p.zones[0])
        .find((slot) => slot.live && slot.id === 0 && until(slot)),
    20_000,
    'a zone packet with zone 0 live',
  );
}

describe('a stored zone set survives any lidar_mode change and restart', () => {
  it('a ZRB set made for 1024 columns: an error at 2048x10, across a restart there, and watched again at 1024x10', async () => {
    unit = await createTestSensor({ product: 'OS-1-32', serial: SERIAL, unit: { firmwareVersion: '3.2' } });
    const config = await unit.app.inject({
      method: 'POST',
      url: '/api/v1/sensor/config',
      payload: zoneStreamConfig(lidar.port, zones.port, '1024x10'),
    });
    expect(config.statusCode, config.body).toBe(204);
    const zip = zrbZoneSetZip(SERIAL, 32, 1024, 2);
    const hash = createHash('sha256').update(zip).digest();
    await stageAndApply(unit.app, zip);
    expect((await zone0(hash, () => true)).errorFlags).toBe(0);

    await setMode('2048x10');
    await zone0(hash, (slot) => slot.errorFlags === ZONE_ERROR_NO_IMAGES);

    unit = await unit.reopen();
    const active = await unit.app.inject({ url: '/api/v1/zone_monitor/active/zip' });
    expect(active.statusCode).toBe(200);
    expect(Buffer.compare(active.rawPayload, Buffer.from(zip))).toBe(0);
    expect((await unit.app.inject({ url: '/api/v1/zone_monitor/live_ids' })).json()).toEqual([0]);
    await zone0(hash, (slot) => slot.errorFlags === ZONE_ERROR_NO_IMAGES);
    // Still the active set: live ids of it are taken.
    const live = await unit.app.inject({ method: 'POST', url: '/api/v1/zone_monitor/live_ids', payload: [0, 1] });
    expect(live.statusCode, live.body).toBe(204);

    await setMode('1024x10');
    const watched = await zone0(hash, (slot) => slot.errorFlags === 0);
    expect(watched.maxCount).toBeGreaterThan(0);
  });
});
