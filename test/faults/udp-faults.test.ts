/**
 * UDP fault actions, observed from outside: an independent receiver decodes every datagram
 * (test/udp/decoder) and counts lost, duplicated, reordered, corrupt and truncated packets, which
 * must match what each rule says it did; the rule's lifetime ends its effect.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FaultPlane } from '../../src/faults/fault-plane.js';
import type { EmitterStreams } from '../../src/hal/emitter-streams.js';
import { FAST_TIMING } from '../../src/faults/index.js';
import type { FaultRuleView } from '../../src/model/fault-rules.js';
import { changeConfig, createTestSensor, removeDir, type TestSensor } from '../helpers/test-sensor.js';
import { drain, UdpCapture } from '../udp/helpers/udp-capture.js';
import { tallyImu, tallyLidar, type Tally } from './helpers/stream-tally.js';
import { decodeLidarPacket } from '../udp/decoder/lidar-decoder.js';
import { waitFor } from '../helpers/poll.js';

let unit: TestSensor;
let plane: FaultPlane;
let lidar: UdpCapture;
let imu: UdpCapture;
const COLUMNS = 512;
const PIXELS = 32;

beforeAll(async () => {
  unit = await createTestSensor({ product: 'OS-1-32' });
  lidar = await UdpCapture.listen();
  imu = await UdpCapture.listen();
  plane = new FaultPlane(unit, { log: pino({ level: 'silent' }), timing: FAST_TIMING });
  const config = {
    udp_dest: '127.0.0.1',
    udp_port_lidar: lidar.port,
    udp_port_imu: imu.port,
    lidar_mode: `${COLUMNS}x10`,
  };
  await changeConfig(unit.sensor, config, { reinit: true, persist: false });
  await waitFor(() => lidar.count > 10 && imu.count > 5, 10_000, 'both streams');
});

afterAll(async () => {
  plane.close();
  await unit.close();
  await Promise.all([lidar.close(), imu.close()]);
  removeDir(unit.dataDir);
});

const sensorData = (c: UdpCapture) =>
  c.datagrams.filter((d) => !d.data.subarray(0, 7).equals(Buffer.from('marker-'))).map((d) => d.data);

async function read(): Promise<{ lidar: Tally; imu: Tally }> {
  await Promise.all([drain(lidar), drain(imu)]);
  return {
    lidar: tallyLidar(sensorData(lidar), 'RNG19_RFL8_SIG16_NIR16', PIXELS, COLUMNS),
    imu: tallyImu(sensorData(imu)),
  };
}

/**
 * Slots the emitter itself skipped (it fell more than its catch-up bound behind: a loaded test machine).
 * The filter never sees those packets, so they are subtracted from what the receiver found lost.
 */
async function skipped(): Promise<{ lidar: number; imu: number }> {
  const stats = await (unit.hal.streams as EmitterStreams).stats();
  return { lidar: stats.lidar?.skipped ?? 0, imu: stats.imu?.skipped ?? 0 };
}

/**
 * Adds a rule, waits until its lifetime ended it and `settlePackets` more lidar packets came; tallies both
 * streams, `lost` counting only packets the emitter sent into the filter.
 */
async function exercise(
  rule: object,
  settlePackets = 60,
): Promise<{ ended: FaultRuleView & { reason?: string }; lidar: Tally; imu: Tally }> {
  lidar.clear();
  imu.clear();
  // Some packets before the rule, so a gap at its start lies inside what the receiver saw.
  await waitFor(() => lidar.count > 10 && imu.count > 3, 10_000, 'packets before the rule');
  const skippedBefore = await skipped();
  const { id } = plane.add(rule);
  await waitFor(() => plane.list().ended.some((e) => e.id === id), 10_000, `rule ${id} to end`);
  const after = lidar.count;
  await waitFor(() => lidar.count > after + settlePackets, 10_000, 'packets after the rule ended');
  const tallies = await read();
  const skippedAfter = await skipped();
  tallies.lidar.lost -= skippedAfter.lidar - skippedBefore.lidar;
  tallies.imu.lost -= skippedAfter.imu - skippedBefore.imu;
  return { ended: plane.get(id), ...tallies };
}

describe('UDP fault rules', () => {
  it('drop with a rate and a count loses exactly that many lidar packets, then the stream is whole again', async () => {
    const r = await exercise({
      selector: { plane: 'udp', stream: 'lidar' },
      action: { type: 'drop', rate: 0.5 },
      lifetime: { count: 40 },
    });
    expect(r.ended.applied).toBe(40);
    expect(r.ended.seen).toBeGreaterThan(40);
    expect(r.lidar.lost).toBe(40);
    expect(r.lidar).toMatchObject({ duplicated: 0, reordered: 0, corrupt: 0, truncated: 0 });
    expect(r.imu.lost).toBe(0);
  });

  it('drop in bursts loses runs of `burst` consecutive packets', async () => {
    const r = await exercise({
      selector: { plane: 'udp', stream: 'lidar' },
      action: { type: 'drop', rate: 0.05, burst: 10 },
      lifetime: { count: 30 },
    });
    expect(r.lidar.lost).toBe(30);
    // Runs of 10 (two bursts could touch, or a skip of a loaded emitter could border one: not every run is 10).
    expect(r.lidar.gaps).toContain(10);
  });

  it('drop on the IMU stream leaves the lidar stream alone', async () => {
    const r = await exercise(
      { selector: { plane: 'udp', stream: 'imu' }, action: { type: 'drop' }, lifetime: { count: 10 } },
      40,
    );
    expect(r.imu.lost).toBe(10);
    expect(r.lidar.lost).toBe(0);
  });

  it('duplicate sends packets twice', async () => {
    const r = await exercise({
      selector: { plane: 'udp', stream: 'lidar' },
      action: { type: 'duplicate' },
      lifetime: { count: 20 },
    });
    expect(r.lidar.duplicated).toBe(20);
    expect(r.lidar.lost).toBe(0);
  });

  it('reorder sends held packets after their successor', async () => {
    const r = await exercise({
      selector: { plane: 'udp', stream: 'lidar' },
      action: { type: 'reorder' },
      lifetime: { count: 20 },
    });
    expect(r.lidar.reordered).toBe(20);
    expect(r.lidar).toMatchObject({ lost: 0, duplicated: 0 });
  });

  it('delay makes packets arrive late but whole', async () => {
    const r = await exercise(
      { selector: { plane: 'udp', stream: 'lidar' }, action: { type: 'delay', ms: 100 }, lifetime: { count: 10 } },
      120,
    );
    expect(r.lidar.reordered).toBe(10);
    expect(r.lidar).toMatchObject({ lost: 0, duplicated: 0, corrupt: 0 });
  });

  it('corrupt makes the CRC of exactly those packets fail', async () => {
    const r = await exercise({
      selector: { plane: 'udp', stream: 'lidar' },
      action: { type: 'corrupt' },
      lifetime: { count: 15 },
    });
    expect(r.lidar.corrupt).toBe(15);
    expect(r.lidar).toMatchObject({ lost: 0, duplicated: 0, truncated: 0 });
  });

  it('truncate cuts datagrams to the given size', async () => {
    const r = await exercise({
      selector: { plane: 'udp', stream: 'both' },
      action: { type: 'truncate', bytes: 20 },
      lifetime: { count: 12 },
    });
    expect(r.lidar.truncated + r.imu.truncated).toBe(12);
    expect(
      sensorData(lidar)
        .concat(sensorData(imu))
        .filter((d) => d.length === 20),
    ).toHaveLength(12);
  });

  it('pause withholds the stream for its duration, then it resumes', async () => {
    const r = await exercise({ selector: { plane: 'udp', stream: 'lidar' }, action: { type: 'pause', ms: 150 } });
    expect(r.ended.reason).toBe('duration elapsed');
    // The worker's final count of the rule arrives just after the rule ended.
    const applied = await waitFor(() => plane.get(r.ended.id).applied || undefined, 10_000, 'the final count');
    expect(r.lidar.lost).toBe(applied);
    expect(r.lidar.longestGap).toBeGreaterThanOrEqual(applied);
    expect(r.lidar.lost).toBeGreaterThan(0);
  });

  it('stop withholds the stream until the rule is removed', async () => {
    const { id } = plane.add({ selector: { plane: 'udp', stream: 'lidar' }, action: { type: 'stop' } });
    await waitFor(() => plane.get(id).applied >= 5, 10_000, 'the stop to take hold');
    await drain(lidar);
    lidar.clear();
    const applied = plane.get(id).applied;
    await waitFor(() => plane.get(id).applied >= applied + 30, 10_000, 'more packets withheld');
    await drain(lidar);
    expect(sensorData(lidar)).toHaveLength(0);
    expect(plane.remove(id)).toBe(true);
    await waitFor(() => lidar.count > 10, 10_000, 'the stream to resume');
  });

  it('frame_rate paces the lidar frames at its rate (timestamps and ids carry on), and lidar_mode rules again after', async () => {
    // Frame periods from the first column's timestamp of each frame seen whole from its first packet.
    const periodsHz = async () => {
      await drain(lidar);
      const starts = new Map<number, bigint>();
      for (const bytes of sensorData(lidar)) {
        const p = decodeLidarPacket(bytes, 'RNG19_RFL8_SIG16_NIR16', PIXELS);
        if (p.columns[0].measurementId === 0) starts.set(p.frameId, p.columns[0].timestamp);
      }
      const ids = [...starts.keys()].sort((a, b) => a - b);
      const hz: number[] = [];
      for (let i = 1; i < ids.length; i++) {
        if (ids[i] !== ids[i - 1] + 1) continue;
        hz.push(1e9 / Number(starts.get(ids[i])! - starts.get(ids[i - 1])!));
      }
      return { hz: hz.sort((a, b) => a - b), ids };
    };
    const frameIds = (c: UdpCapture) =>
      sensorData(c).map((b) => decodeLidarPacket(b, 'RNG19_RFL8_SIG16_NIR16', PIXELS).frameId);
    await waitFor(() => lidar.count > 10, 10_000, 'packets before the rule');
    const { id } = plane.add({ selector: { plane: 'udp', stream: 'lidar' }, action: { type: 'frame_rate', hz: 4 } });
    await waitFor(() => plane.get(id).applied >= 5, 10_000, 'the new rate to take hold');
    await drain(lidar);
    const lastBefore = Math.max(...frameIds(lidar));
    lidar.clear();
    await waitFor(() => plane.get(id).applied >= 5 + 4 * (COLUMNS / 16), 10_000, 'four frames at the new rate');
    const slow = await periodsHz();
    expect(slow.hz.length).toBeGreaterThanOrEqual(2);
    for (const hz of slow.hz) expect(hz).toBeCloseTo(4, 3);
    // Frame ids carry on: no id of the new pacing repeats one sent before it.
    expect(Math.min(...frameIds(lidar))).toBeGreaterThan(lastBefore - 1);
    expect(plane.get(id).applied).toBe(plane.get(id).seen);
    expect(plane.remove(id)).toBe(true);
    // The removal reaches the emitter thread a moment later: frames at 10 Hz follow, and keep following.
    await waitFor(
      async () => (await periodsHz()).hz.some((hz) => Math.abs(hz - 10) < 0.001),
      10_000,
      'a frame at 10 Hz',
    );
    await drain(lidar);
    lidar.clear();
    await waitFor(() => lidar.count > 4 * (COLUMNS / 16), 10_000, 'four frames at lidar_mode rate');
    const back = await periodsHz();
    expect(back.hz.length).toBeGreaterThanOrEqual(2);
    for (const hz of back.hz) expect(hz).toBeCloseTo(10, 3);
  });

  it('a link that is down carries neither stream until it is up again', async () => {
    const { id } = plane.add({ selector: { plane: 'unit' }, action: { type: 'link_down' } });
    await waitFor(() => plane.get(id).applied >= 5, 10_000, 'the link to go down');
    await Promise.all([drain(lidar), drain(imu)]);
    lidar.clear();
    imu.clear();
    const applied = plane.get(id).applied;
    await waitFor(() => plane.get(id).applied >= applied + 30, 10_000, 'more packets withheld');
    await Promise.all([drain(lidar), drain(imu)]);
    expect(sensorData(lidar).length + sensorData(imu).length).toBe(0);
    expect(plane.remove(id)).toBe(true);
    await waitFor(() => lidar.count > 10 && imu.count > 3, 10_000, 'both streams to resume');
  });
});
