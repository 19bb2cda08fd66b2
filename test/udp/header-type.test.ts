/**
 * header_type FUSA (firmware 3.2) on a profile of its own STANDARD header: the packets carry the FUSA header
 * (u32 frame id strictly increasing, no CRC, all-zero footer) and the metadata says so; FUSA_RNG15_RFL8_NIR8_DUAL
 * keeps its FUSA header whatever header_type says. Decoded with the independent decoder on real sockets.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { EmitterStreams } from '../../src/hal/emitter-streams.js';
import { createTestSensor, removeDir, type TestSensor } from '../helpers/test-sensor.js';
import { capturedFrames } from './helpers/captured-frames.js';
import { RecordingAlerts } from './helpers/recording-alerts.js';

const streams = new EmitterStreams(new RecordingAlerts());
afterAll(() => streams.close());
let unit: TestSensor | undefined;
// Each test's unit is closed and its data directory removed after it.
afterEach(() => unit?.close().then(() => removeDir(unit!.dataDir)));

describe('header_type', () => {
  it.each(['RNG19_RFL8_SIG16_NIR16', 'RNG15_RFL8_NIR8', 'RNG19_RFL8_SIG16_ZONE16_DUAL'] as const)(
    'FUSA: %s packets carry the FUSA header, frame ids counting up by one per frame',
    async (profile) => {
      // 512x10 on OS-1-32: 32 packets per frame.
      const frames = await capturedFrames(
        streams,
        { udp_profile_lidar: profile, header_type: 'FUSA', lidar_mode: '512x10' },
        32,
        'FUSA',
      );
      expect(frames.length).toBeGreaterThanOrEqual(2);
      for (const packets of frames)
        for (const p of packets) {
          expect(p.packetType).toBe(1);
          expect(p.initId).toBeGreaterThan(0x30000);
          expect(p.serial).toBe(1n);
          expect(p.reservedZero).toBe(true);
          expect(p.footerOk).toBe(true); // FUSA: all-zero footer, no CRC
          expect(p.frameId).toBe(packets[0].frameId);
        }
      const ids = frames.map((packets) => packets[0].frameId);
      for (let k = 1; k < ids.length; k++) expect(ids[k]).toBeGreaterThan(ids[k - 1]);
    },
  );

  it("is reported in lidar_data_format: header_type's value, FUSA always for FUSA_RNG15_RFL8_NIR8_DUAL", async () => {
    unit = await createTestSensor({ unit: { firmwareVersion: '3.2' } });
    const format = async () => (await unit!.app.inject({ url: '/api/v1/sensor/metadata/lidar_data_format' })).json();
    const post = (body: object) => unit!.app.inject({ method: 'POST', url: '/api/v1/sensor/config', payload: body });
    expect((await post({ header_type: 'FUSA' })).statusCode).toBe(204);
    expect(await unit.app.inject({ url: '/api/v1/sensor/config/header_type' }).then((r) => r.json())).toBe('FUSA');
    await expect.poll(async () => (await format()).header_type).toBe('FUSA');
    expect((await post({ header_type: 'STANDARD', udp_profile_lidar: 'FUSA_RNG15_RFL8_NIR8_DUAL' })).statusCode).toBe(
      204,
    );
    await expect.poll(async () => (await format()).udp_profile_lidar).toBe('FUSA_RNG15_RFL8_NIR8_DUAL');
    expect((await format()).header_type).toBe('FUSA');
  });
});
