/**
 * The `window_soil` fault action (docs/faults.md): dirt on part of the window shows in the WINDOW byte of the
 * pixels behind it and in their returns (dimmed, or lost from level 192), nowhere else, and goes with its rule.
 * A 3.2 unit streams RNG15_RFL8_WIN8 (and RNG15_RFL8_NIR8_DUAL) to a loopback capture; packets decoded with the
 * independent decoder of test/udp.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FaultPlane } from '../../src/faults/fault-plane.js';
import { FAST_TIMING } from '../../src/faults/index.js';
import { validateFaultRule } from '../../src/faults/rule-validation.js';
import { createTestSensor, removeDir, type TestSensor } from '../helpers/test-sensor.js';
import { waitFor } from '../helpers/poll.js';
import type { Profile } from '../udp/decoder/formats.js';
import { type DecodedLidarPacket, decodeLidarPacket } from '../udp/decoder/lidar-decoder.js';
import { UdpCapture } from '../udp/helpers/udp-capture.js';

let unit: TestSensor;
let plane: FaultPlane;
let rx: UdpCapture;

beforeAll(async () => {
  unit = await createTestSensor({ product: 'OS-1-32', unit: { firmwareVersion: '3.2' } });
  plane = new FaultPlane(unit, { log: pino({ level: 'silent' }), timing: FAST_TIMING });
  rx = await UdpCapture.listen();
});
afterAll(async () => {
  plane.close();
  await rx.close();
  await unit.close();
  removeDir(unit.dataDir);
});

async function stream(profile: Profile): Promise<void> {
  const res = await unit.app.inject({
    method: 'POST',
    url: '/api/v1/sensor/config',
    payload: {
      udp_dest: '127.0.0.1',
      udp_port_lidar: rx.port,
      udp_port_imu: 0,
      udp_profile_lidar: profile,
      lidar_mode: '512x10',
    },
  });
  expect(res.statusCode, res.body).toBe(204);
}

/**
 * A whole frame (32 packets at 512x10) sent after now, decoded. Datagrams still queued in the socket from before
 * (while the test decoded the last frame) are let through first: two frames' worth more, then the next whole frame.
 */
async function frameAfter(profile: Profile): Promise<DecodedLidarPacket[]> {
  const queued = rx.count;
  await waitFor(() => rx.count >= queued + 64, 20_000, 'two frames of packets');
  const since = rx.count;
  return waitFor(
    () => {
      const packets = rx.datagrams.slice(since).map((d) => decodeLidarPacket(d.data, profile, 32));
      const byFrame = new Map<number, DecodedLidarPacket[]>();
      for (const p of packets) byFrame.set(p.frameId, [...(byFrame.get(p.frameId) ?? []), p]);
      // Not the first frame seen after `since` (it may be partial, or encoded before the change).
      return [...byFrame.values()].filter((f) => f.length === 32)[1];
    },
    20_000,
    'a whole frame',
  );
}

/** Column m is at azimuth (1 − m / 512) turns: 0-90° is measurement ids 384-511 and 0. */
const behind = (m: number, beam: number) => (m >= 384 || m === 0) && beam >= 8 && beam <= 15;

/** A window_soil rule in front of beams 8-15 from 0 to 90° (the pixels `behind` says). */
const soilBehind = (level: number) =>
  plane.add({
    selector: { plane: 'unit' },
    action: { type: 'window_soil', azimuth_from_deg: 0, azimuth_to_deg: 90, first_beam: 8, last_beam: 15, level },
  });

describe('window_soil', () => {
  it('a clean window: WINDOW 0 in every pixel of RNG15_RFL8_WIN8', async () => {
    await stream('RNG15_RFL8_WIN8');
    const frame = await frameAfter('RNG15_RFL8_WIN8');
    for (const p of frame) for (const c of p.columns) for (const px of c.pixels) expect(px.window).toBe(0);
  });

  it('soils beams 8-15 from 0 to 90°: their WINDOW byte is the level, their returns dimmed; clean again once removed', async () => {
    await stream('RNG15_RFL8_WIN8');
    const clean = await frameAfter('RNG15_RFL8_WIN8');
    const rule = soilBehind(100);
    const soiled = await frameAfter('RNG15_RFL8_WIN8');
    const at = (frame: DecodedLidarPacket[], m: number, beam: number) =>
      frame.flatMap((p) => p.columns).find((c) => c.measurementId === m)!.pixels[beam];
    let dimmed = 0;
    for (let m = 0; m < 512; m++)
      for (let beam = 0; beam < 32; beam++) {
        const before = at(clean, m, beam);
        const after = at(soiled, m, beam);
        expect(after.window, `m ${m} beam ${beam}`).toBe(behind(m, beam) ? 100 : 0);
        // The light through the dirt, out and back: (1 − 100/255)² of the reflectivity.
        const expected = behind(m, beam) ? Math.round(before.reflectivity * (1 - 100 / 255) ** 2) : before.reflectivity;
        expect(after.reflectivity, `m ${m} beam ${beam}`).toBe(expected);
        expect(after.range).toBe(before.range);
        if (behind(m, beam) && before.reflectivity > 0) dimmed++;
      }
    expect(dimmed).toBeGreaterThan(100);
    plane.remove(rule.id);
    const again = await frameAfter('RNG15_RFL8_WIN8');
    for (const p of again) for (const c of p.columns) for (const px of c.pixels) expect(px.window).toBe(0);
  });

  it('from level 192 nothing gets through: no return behind it; RNG15_RFL8_NIR8_DUAL carries WINDOW at byte 7', async () => {
    await stream('RNG15_RFL8_NIR8_DUAL');
    const rule = soilBehind(230);
    const frame = await frameAfter('RNG15_RFL8_NIR8_DUAL');
    let returnsElsewhere = 0;
    for (const p of frame)
      for (const c of p.columns)
        c.pixels.forEach((px, beam) => {
          expect(px.window).toBe(behind(c.measurementId, beam) ? 230 : 0);
          if (behind(c.measurementId, beam)) expect([px.range, px.range2, px.reflectivity]).toEqual([0, 0, 0]);
          else if (px.range > 0) returnsElsewhere++;
        });
    expect(returnsElsewhere).toBeGreaterThan(1000);
    plane.remove(rule.id);
  });

  it('refuses a window_soil rule with a level, azimuth or beam out of range, naming it', () => {
    for (const [action, pointer] of [
      [{ type: 'window_soil', azimuth_from_deg: 0, azimuth_to_deg: 90, level: 0 }, '/action/level'],
      [{ type: 'window_soil', azimuth_from_deg: 0, azimuth_to_deg: 400 }, '/action/azimuth_to_deg'],
      [{ type: 'window_soil', azimuth_from_deg: 0, azimuth_to_deg: 90, last_beam: 128 }, '/action/last_beam'],
    ] as const) {
      const { errors } = validateFaultRule({ selector: { plane: 'unit' }, action });
      expect(errors.map((e) => e.pointer)).toEqual([pointer]);
    }
    const { rule } = validateFaultRule({
      selector: { plane: 'unit' },
      action: { type: 'window_soil', azimuth_from_deg: 300, azimuth_to_deg: 20 },
    });
    expect(rule?.action).toEqual({
      type: 'window_soil',
      azimuth_from_deg: 300,
      azimuth_to_deg: 20,
      first_beam: 0,
      last_beam: 127,
      level: 255,
    });
  });
});
