/**
 * The simulated lidar HAL end to end on real loopback sockets: what a client receives for each
 * profile and several models and modes, decoded with the independent decoder in ./decoder.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/registry.js';
import type { SensorConfig } from '../../src/model/index.js';
import { EmitterStreams } from '../../src/hal/emitter-streams.js';
import { columnsPerFrame, columnWindow, frameRateHz } from '../../src/model/lidar-geometry.js';
import { findProduct } from '../../src/model/products.js';
import { SCENE } from '../../src/udp/scene/courtyard.js';
import { decodeImuPacket } from './decoder/imu-decoder.js';
import { isFusa, type Profile } from './decoder/formats.js';
import { pointOf } from './decoder/geometry.js';
import { checkLidarStream, packetsInWindow, type LidarExpectations } from './helpers/stream-checks.js';
import {
  columnTowards,
  expectedAlong,
  expectedThroughGlass,
  FLOOR_Z,
  WALL_BACK_X,
  WALL_FRONT_X,
} from './helpers/known-rays.js';
import { RecordingAlerts } from './helpers/recording-alerts.js';
import { UdpCapture } from './helpers/udp-capture.js';
import { planStreams, type StreamPlan } from '../../src/udp/index.js';
import { waitFor } from '../helpers/poll.js';

const SERIAL = 992233000123n;
/** Like a PTP clock: sensor time ≈ now since the epoch. */
const OFFSET_NS = BigInt(Date.now()) * 1_000_000n - process.hrtime.bigint();
const sensorNow = () => process.hrtime.bigint() + OFFSET_NS;

let initId = 0x10000;
const alerts = new RecordingAlerts();
const lidar = new EmitterStreams(alerts);
/** Every capture gets its own port, so no datagram of an earlier case can reach it. */
const captures: UdpCapture[] = [];
async function capture(): Promise<UdpCapture> {
  const c = await UdpCapture.listen();
  captures.push(c);
  return c;
}

afterAll(async () => {
  await lidar.close();
  await Promise.all(captures.map((c) => c.close()));
});

/** A run: the plan the device core would build, with the configuration and product it was built from. */
interface Run {
  plan: StreamPlan;
  config: SensorConfig;
  channels: number;
}

function runOf(product: string, config: Partial<SensorConfig>, bindAddress?: string): Run {
  const full: SensorConfig = {
    ...defaultConfig(),
    udp_dest: '127.0.0.1',
    udp_port_lidar: 0,
    udp_port_imu: 0,
    ...config,
  };
  const model = findProduct(product)!;
  const plan = planStreams(full, {
    initId: ++initId,
    product: model,
    serialNumber: SERIAL,
    bindAddress,
    timestampOffsetNs: OFFSET_NS,
  });
  if (!plan) throw new Error('the configuration streams nothing (operating_mode)');
  return { plan, config: full, channels: model.channels };
}

function expectationsOf(run: Run): LidarExpectations {
  const c = run.config;
  const cpf = columnsPerFrame(c.lidar_mode);
  return {
    profile: c.udp_profile_lidar as Profile,
    pixels: run.channels,
    columnsPerFrame: cpf,
    frameRateHz: frameRateHz(c.lidar_mode),
    columnWindow: columnWindow(c.azimuth_window, cpf),
    initId: run.plan.initId,
    serial: SERIAL,
  };
}

/** Streams `product` with `config` to a fresh capture until a partial and two complete frames can have arrived. */
async function stream(product: string, config: Partial<SensorConfig>) {
  const rx = await capture();
  const run = runOf(product, { ...config, udp_port_lidar: rx.port });
  const e = expectationsOf(run);
  const from = sensorNow();
  await lidar.apply(run.plan);
  await waitFor(() => rx.count >= 3 * packetsInWindow(e) + 1, 20_000, 'three frames of packets');
  const checked = checkLidarStream(
    rx.datagrams.map((d) => d.data),
    { ...e, sensorTimeFrom: from, sensorTimeTo: sensorNow() },
  );
  expect(checked.complete.length).toBeGreaterThanOrEqual(2);
  await rx.close();
  return { ...checked, e };
}

describe('lidar streams, per profile, model and mode', () => {
  const cases: [Profile, string, SensorConfig['lidar_mode'], Partial<SensorConfig>][] = [
    ['RNG19_RFL8_SIG16_NIR16', 'OS-1-128', '1024x10', {}],
    ['RNG19_RFL8_SIG16_NIR16', 'OS-0-32', '512x20', {}],
    ['RNG19_RFL8_SIG16_NIR16_DUAL', 'OS-1-64', '1024x10', { return_order: 'NEAREST_TO_FARTHEST' }],
    ['RNG19_RFL8_SIG16_NIR16_DUAL', 'OS-2-32', '2048x10', {}],
    ['RNG15_RFL8_NIR8', 'OS-1-32', '2048x10', {}],
    ['RNG15_RFL8_NIR8', 'OS-0-64', '1024x20', {}],
    ['FUSA_RNG15_RFL8_NIR8_DUAL', 'OS-1-128', '512x10', { return_order: 'NEAREST_TO_FARTHEST' }],
    ['FUSA_RNG15_RFL8_NIR8_DUAL', 'OS-2-64', '1024x10', { azimuth_window: [300_000, 60_000] }],
  ];

  it.each(cases)(
    '%s on %s in %s: complete frames that match the metadata and the scene',
    async (profile, product, mode, extra) => {
      const { complete, e } = await stream(product, { udp_profile_lidar: profile, lidar_mode: mode, ...extra });
      const beams = findProduct(product)!;
      const frame = complete[0];
      const tolerance = profile.startsWith('RNG19') ? 12 : 16; // ±9 mm scene noise, plus 8 mm steps in RNG15 fields

      // Known rays along the -x axis (back wall and floor) and the +x axis (front wall and floor), when inside the window.
      let checked = 0;
      for (const [deg, wallX] of [
        [180, WALL_BACK_X],
        [0, WALL_FRONT_X],
      ] as const) {
        for (let p = 0; p < e.pixels; p++) {
          const m = columnTowards(deg, p, e.columnsPerFrame, beams);
          const column = frame.columns.get(m);
          if (!column || !(column.status & 1)) continue;
          const expected = expectedAlong(m, p, e.columnsPerFrame, beams, wallX);
          if (!expected) continue;
          const px = column.pixels[p];
          // Single-return profiles report the strongest return; these rays have only one.
          expect(Math.abs(px.range - expected.range), `m ${m} p ${p} ${expected.surface}`).toBeLessThanOrEqual(
            tolerance,
          );
          if (expected.surface === 'floor')
            expect(Math.abs(pointOf(px.range, m, p, e.columnsPerFrame, beams)[2] - FLOOR_Z)).toBeLessThanOrEqual(
              tolerance,
            );
          if (expected.surface === 'wall')
            expect(Math.abs(pointOf(px.range, m, p, e.columnsPerFrame, beams)[0] - wallX)).toBeLessThanOrEqual(
              tolerance,
            );
          if (expected.surface !== 'sky') {
            expect(px.reflectivity).toBeGreaterThan(0);
            if (!profile.startsWith('RNG15') && !isFusa(profile)) expect(px.signal).toBeGreaterThan(0);
          }
          expect(px.nearIr).toBeGreaterThan(0);
          checked++;
        }
      }
      expect(checked, 'known rays inside the window').toBeGreaterThan(e.pixels / 2);

      // No return closer than the default 50 cm minimum range.
      for (const c of frame.columns.values())
        for (const px of c.pixels) expect(px.range === 0 || px.range >= 500).toBe(true);
    },
  );

  it('dual returns see through the glass pane in return_order; FARTHEST_TO_NEAREST reverses them', async () => {
    const beams = findProduct('OS-1-64')!;
    for (const order of ['NEAREST_TO_FARTHEST', 'FARTHEST_TO_NEAREST'] as const) {
      const { complete, e } = await stream('OS-1-64', {
        udp_profile_lidar: 'RNG19_RFL8_SIG16_NIR16_DUAL',
        lidar_mode: '1024x10',
        return_order: order,
      });
      const frame = complete[0];
      let seen = 0;
      for (let p = 0; p < e.pixels; p++) {
        const m = columnTowards(26.5, p, e.columnsPerFrame, beams);
        const expected = expectedThroughGlass(m, p, e.columnsPerFrame, beams);
        if (!expected) continue;
        const px = frame.columns.get(m)!.pixels[p];
        const [first, second] =
          order === 'NEAREST_TO_FARTHEST' ? [expected.glass, expected.behind] : [expected.behind, expected.glass];
        expect(Math.abs(px.range - first), `m ${m} p ${p}`).toBeLessThanOrEqual(12);
        expect(Math.abs(px.range2 - second), `m ${m} p ${p}`).toBeLessThanOrEqual(12);
        expect(px.signal2).toBeGreaterThan(0);
        seen++;
      }
      expect(seen).toBeGreaterThan(5);
    }
  });

  it('reports returns closer than min_range_threshold_cm as 0 (and reports them when it is 0)', async () => {
    const near = (frame: { columns: Map<number, { pixels: { range: number; range2: number }[] }> }) =>
      [...frame.columns.values()]
        .flatMap((c) => c.pixels.flatMap((px) => [px.range, px.range2]))
        .filter((r) => r > 0 && r < 500).length;
    const zero = await stream('OS-0-32', {
      udp_profile_lidar: 'RNG19_RFL8_SIG16_NIR16_DUAL',
      lidar_mode: '512x10',
      min_range_threshold_cm: 0,
    });
    expect(near(zero.complete[0]), 'the pole beside the unit is closer than 50 cm').toBeGreaterThan(0);
    const fifty = await stream('OS-0-32', {
      udp_profile_lidar: 'RNG19_RFL8_SIG16_NIR16_DUAL',
      lidar_mode: '512x10',
      min_range_threshold_cm: 50,
    });
    expect(near(fifty.complete[0])).toBe(0);
  });

  it('scales signal with signal_multiplier', async () => {
    const total = (r: Awaited<ReturnType<typeof stream>>) =>
      [...r.complete[0].columns.values()].reduce((s, c) => s + c.pixels.reduce((a, px) => a + px.signal, 0), 0);
    const one = await stream('OS-1-32', { lidar_mode: '512x10', signal_multiplier: 1 });
    const two = await stream('OS-1-32', { lidar_mode: '512x10', signal_multiplier: 2, azimuth_window: [0, 180_000] });
    const oneHalf = [...one.complete[0].columns.entries()].filter(
      ([m]) => (two.complete[0].columns.get(m)?.status ?? 0) & 1,
    );
    const sumOne = oneHalf.reduce((s, [, c]) => s + c.pixels.reduce((a, px) => a + px.signal, 0), 0);
    expect(total(two) / sumOne).toBeGreaterThan(1.9);
    expect(total(two) / sumOne).toBeLessThan(2.1);
  });

  it('publishes its scene facts the known-ray checks rely on', () => {
    expect(SCENE.floorZMm).toBe(FLOOR_Z);
    expect(SCENE.walls.xMin).toBe(WALL_BACK_X);
    expect(SCENE.walls.xMax).toBe(WALL_FRONT_X);
  });
});

describe('IMU stream', () => {
  it('sends 48-byte packets at rest, on the 10 ms grid of the sensor clock, within the full-scale range', async () => {
    for (const fsr of ['NORMAL', 'EXTENDED'] as const) {
      const imuRx = await capture();
      const from = sensorNow();
      await lidar.apply(runOf('OS-1-32', { udp_port_imu: imuRx.port, accel_fsr: fsr, gyro_fsr: fsr }).plan);
      await waitFor(() => imuRx.count >= 10, 10_000, 'IMU packets');
      const packets = imuRx.datagrams.map((d) => decodeImuPacket(d.data));
      const to = sensorNow();
      const lsb = (fsr === 'NORMAL' ? 2 : 16) / 32768;
      for (const [i, p] of packets.entries()) {
        expect(p.sysTs % 10_000_000n).toBe(0n);
        expect(p.sysTs >= from && p.sysTs <= to).toBe(true);
        expect(p.accelTs <= p.sysTs && p.gyroTs <= p.sysTs).toBe(true);
        if (i > 0) expect(p.sysTs - packets[i - 1].sysTs).toBe(10_000_000n);
        expect(p.accel[2]).toBeGreaterThan(0.98);
        expect(p.accel[2]).toBeLessThan(1.02);
        expect(Math.hypot(p.accel[0], p.accel[1])).toBeLessThan(0.05);
        for (const g of p.gyro) expect(Math.abs(g)).toBeLessThan(1);
        // Values are whole counts of the range's 16-bit resolution.
        for (const a of p.accel) expect(Math.abs(a / lsb - Math.round(a / lsb))).toBeLessThan(1e-3);
      }
    }
  });
});
