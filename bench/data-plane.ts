/**
 * (2) Data plane: for 2048x10 and 1024x20 with 128 channels and every lidar profile, the packet rate
 * against nominal, inter-arrival jitter, lost packets and the server's CPU, once idle and once while
 * the HTTP load of (1) runs against the same sensor; then the same for the ACCEL32_GYRO32_NMEA IMU stream beside
 * the lidar stream at 2048x10. The unit runs firmware 3.2, which offers every profile.
 */
import { LIDAR_PROFILES } from '../src/model/index.js';
import type { BenchContext } from './context.js';
import { LoadGenerator } from './load-client.js';
import { imuPacketRate, nominalPacketRate } from './packet-fields.js';
import { sleep } from './processes.js';
import { CpuMeter, udpReceiveBufferErrors } from './proc-stats.js';
import type { StreamReport } from './receiver-protocol.js';
import { fmt, metText, unavailable, type Figure, type Section, type TableRow } from './report.js';
import { spawnSensor } from './sensor-process.js';
import { IMU_FRAMES, LIDAR, NoPacketsError, StreamRig } from './stream-rig.js';

export const RATE_TOLERANCE = 0.005;
export const JITTER_P99_TARGET_MS = { idle: 2, load: 4 } as const;
export const CPU_TARGET = 0.15;
/** The configuration the CPU target is stated for. */
const CPU_TARGET_RUN = { mode: '2048x10', profile: 'RNG19_RFL8_SIG16_NIR16' };
/** The IMU row: ACCEL32_GYRO32_NMEA at its default 8 packets per frame, beside the lidar stream of this run. */
const IMU_RUN = { mode: '2048x10', profile: 'RNG19_RFL8_SIG16_NIR16', imuPacketsPerFrame: 8 };

type Condition = 'idle' | 'load';

interface RunResult {
  mode: string;
  profile: string;
  condition: Condition;
  stream: StreamReport;
  cpuPerSecond: number;
  receiveBufferDrops: number;
  /** GET /api/v1/sensor/config requests/s the sensor served during the window (load runs only). */
  httpPerSecond?: number;
  /** The row measures the ACCEL32_GYRO32_NMEA IMU stream with this many packets per frame (not the lidar stream). */
  imuPacketsPerFrame?: number;
}

function runSection(r: RunResult): Section {
  const imu = r.imuPacketsPerFrame;
  const nominal = imu ? imuPacketRate(r.mode, imu) : nominalPacketRate(r.mode);
  const stream = imu ? `${r.mode} IMU ACCEL32_GYRO32_NMEA ${imu}/frame` : `${r.mode} ${r.profile}`;
  const label = `Data ${stream} ${r.condition === 'idle' ? 'idle' : 'under HTTP load'}`;
  const ratio = r.stream.rate / nominal;
  const rateMet = Math.abs(ratio - 1) <= RATE_TOLERANCE;
  const jitter = r.stream.jitterMs;
  const jitterTarget = JITTER_P99_TARGET_MS[r.condition];
  const jitterMet = jitter !== null && jitter.p99 <= jitterTarget;
  const lossMet = r.stream.lost === 0;
  const cpuTargeted =
    !imu && r.condition === 'idle' && r.mode === CPU_TARGET_RUN.mode && r.profile === CPU_TARGET_RUN.profile;
  const cpuMet = r.cpuPerSecond <= CPU_TARGET;
  const figures: Figure[] = [
    {
      name: `${label} packets/s`,
      value: r.stream.rate,
      unit: 'packets/s',
      reference: nominal,
      ratio,
      references: [{ name: 'nominal', value: nominal, ratio }],
      target: `within ${RATE_TOLERANCE * 100}% of nominal`,
      met: rateMet,
    },
    { name: `${label} jitter p50`, value: jitter?.p50 ?? null, unit: 'ms' },
    {
      name: `${label} jitter p99`,
      value: jitter?.p99 ?? null,
      unit: 'ms',
      target: `<= ${jitterTarget} ms`,
      met: jitterMet,
    },
    { name: `${label} jitter max`, value: jitter?.max ?? null, unit: 'ms' },
    {
      name: `${label} lost packets`,
      value: r.stream.lost,
      unit: 'packets',
      target: '0',
      met: lossMet,
      ...(r.receiveBufferDrops
        ? { note: `${r.receiveBufferDrops} dropped by a full receive buffer (kernel RcvbufErrors)` }
        : {}),
    },
    {
      name: `${label} server CPU`,
      value: r.cpuPerSecond,
      unit: 'CPU s/s',
      ...(cpuTargeted ? { target: `<= ${CPU_TARGET}`, met: cpuMet } : {}),
    },
  ];
  if (r.httpPerSecond !== undefined)
    figures.push({ name: `${label} concurrent HTTP GET config`, value: r.httpPerSecond, unit: 'req/s' });
  const misses = [
    !rateMet && 'rate',
    !jitterMet && 'jitter',
    !lossMet && 'loss',
    cpuTargeted && !cpuMet && 'CPU',
  ].filter(Boolean);
  const row: TableRow = {
    figure: label,
    value:
      `${fmt(r.stream.rate, 1)} pkt/s; jitter p50/p99/max ${fmt(jitter?.p50)}/${fmt(jitter?.p99)}/${fmt(jitter?.max)} ms; ` +
      `lost ${r.stream.lost}${r.receiveBufferDrops ? ` (rcvbuf ${r.receiveBufferDrops})` : ''}; CPU ${fmt(r.cpuPerSecond, 3)} s/s` +
      (r.httpPerSecond !== undefined ? `; HTTP ${fmt(r.httpPerSecond, 0)} req/s` : ''),
    reference: `${nominal} pkt/s nominal`,
    ratio: fmt(ratio, 4),
    target: `±${RATE_TOLERANCE * 100}%, p99 <= ${jitterTarget} ms, 0 lost${cpuTargeted ? `, CPU <= ${CPU_TARGET}` : ''}`,
    met: misses.length ? `NO (${misses.join(', ')})` : metText(true),
  };
  return { figures, rows: [row] };
}

/** One measurement window: receiver counting, server CPU metered, kernel drop counter read. */
async function window(
  rig: StreamRig,
  seconds: number,
  streamId = LIDAR,
): Promise<Omit<RunResult, 'mode' | 'profile' | 'condition'>> {
  const drops = udpReceiveBufferErrors();
  const cpu = new CpuMeter(rig.sensor.pid).start();
  await rig.receiver.startWindow();
  await sleep(seconds * 1000);
  const streams = await rig.receiver.stopWindow();
  return {
    cpuPerSecond: cpu.perSecond(),
    stream: streams[streamId],
    receiveBufferDrops: udpReceiveBufferErrors() - drops,
  };
}

export async function benchDataPlane(ctx: BenchContext): Promise<Section> {
  const windowS = ctx.quick ? 1.5 : 3;
  const settleMs = ctx.quick ? 300 : 1000;
  const runs: { mode: string; profile: string; imuPacketsPerFrame?: number }[] = ctx.quick
    ? [
        { mode: '2048x10', profile: 'RNG19_RFL8_SIG16_NIR16' },
        { mode: '1024x20', profile: 'RNG19_RFL8_SIG16_NIR16_DUAL' },
      ]
    : ['2048x10', '1024x20'].flatMap((mode) => LIDAR_PROFILES.map((profile) => ({ mode, profile })));
  runs.push(IMU_RUN);
  const sensor = await spawnSensor({
    host: '127.0.0.1',
    dataDir: ctx.dataDir('stream'),
    args: ['--firmware-version', '3.2'],
  });
  const rig = await StreamRig.start(ctx, '127.0.0.1', sensor);
  const generator = LoadGenerator.start();
  const sections: Section[] = [];
  try {
    for (const { mode, profile, imuPacketsPerFrame } of runs) {
      const what = imuPacketsPerFrame ? `${profile} + IMU ACCEL32_GYRO32_NMEA` : profile;
      ctx.log(`data plane ${mode} ${what}: idle, then under HTTP load (${windowS} s each)`);
      const streamId = imuPacketsPerFrame ? IMU_FRAMES : LIDAR;
      try {
        await rig.configure(mode, profile, true, imuPacketsPerFrame);
      } catch (error) {
        if (error instanceof NoPacketsError) return unavailable('Data plane', 'packets/s', 'data plane not streaming');
        throw error;
      }
      await sleep(settleMs);
      const run = { mode, profile, imuPacketsPerFrame };
      sections.push(runSection({ ...run, condition: 'idle', ...(await window(rig, windowS, streamId)) }));

      // The same load as (1): 10 connections polling GET /api/v1/sensor/config, for longer than the window.
      const load = generator.run({
        url: `${rig.sensor.baseUrl}/api/v1/sensor/config`,
        method: 'GET',
        connections: 10,
        durationS: windowS + settleMs / 1000 + 0.5,
      });
      // Awaited below; until then a failure (the generator dying on Ctrl-C) must not be an unhandled rejection.
      load.catch(() => {});
      await sleep(settleMs);
      const measured = await window(rig, windowS, streamId);
      const loadResult = await load;
      sections.push(
        runSection({ ...run, condition: 'load', ...measured, httpPerSecond: loadResult.requestsPerSecond }),
      );
    }
  } finally {
    await Promise.all([generator.close(), rig.close()]);
  }
  return { figures: sections.flatMap((s) => s.figures), rows: sections.flatMap((s) => s.rows) };
}
