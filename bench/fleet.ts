/**
 * (5) Fleet scale: how many simulated OS-1-128 sensors at 1024x10 (one process each, each on its own
 * 127.0.0.x address) this machine sustains with every stream within 0.5% of its nominal rate.
 *
 * The fleet grows step by step (sensors are added, never restarted) until a stream falls outside the
 * tolerance, a sensor fails to come up, or the time budget is spent. Receivers count cheaply (no
 * jitter samples), one process per few sensors, and their own CPU and the kernel's receive-buffer
 * drops are reported so a receiver bottleneck is visible rather than blamed on the sensors.
 */
import type { BenchContext } from './context.js';
import { headerLayout, nominalPacketRate, packetsPerFrame } from './packet-fields.js';
import { sleep } from './processes.js';
import { CpuMeter, machineCpu, udpReceiveBufferErrors } from './proc-stats.js';
import { nativeReceiverBinary } from './native-receiver.js';
import { Receiver } from './receiver-client.js';
import { fmt, metText, type Figure, type Section, type TableRow } from './report.js';
import { configureStream } from './sensor-api.js';
import { spawnSensor, type SensorProcess } from './sensor-process.js';

export const FLEET_TARGET = 8;
export const MODE = '1024x10';
export const PROFILE = 'RNG19_RFL8_SIG16_NIR16';
export const TOLERANCE = 0.005;
/**
 * The receiver that counts sensor `index`'s streams, started on first use. The C header counter takes
 * 32 sensors in its one thread (a system call per 64 datagrams); the Node fallback takes 4, as one Node
 * process cannot receive more 25 KB datagrams a second without falling behind.
 */
export async function receiverFor(index: number, receivers: Receiver[]): Promise<Receiver> {
  const perReceiver = 'binary' in nativeReceiverBinary() ? 32 : 4;
  const r = Math.floor(index / perReceiver);
  receivers[r] ??= await Receiver.start([], { counting: true });
  return receivers[r];
}
/** Sensor i listens on 127.0.0.(FIRST_HOST + i); 127.0.0.1 stays free for the receivers. */
const FIRST_HOST = 10;
/** 127.0.0.(10 + i) ends at .254. */
const MAX_SENSORS = 244;
/** Past the listed steps the fleet grows by this many sensors per step until a step fails. */
const GROWTH_BEYOND = 16;

interface Member {
  index: number;
  sensor: SensorProcess;
  receiver: Receiver;
}

interface StepResult {
  sensors: number;
  worstRatio: number;
  bestRatio: number;
  lost: number;
  receiveBufferDrops: number;
  machineBusy: number;
  sensorsCpu: number;
  receiversCpu: number;
  ok: boolean;
}

export const lidarId = (i: number) => `lidar-${i}`;
export const imuId = (i: number) => `imu-${i}`;

/** Ports for sensor `index` on its receiver (opened one at a time: a receiver answers one request at a time). */
export async function openPorts(index: number, receiver: Receiver): Promise<Record<string, number>> {
  return receiver.open([
    {
      id: lidarId(index),
      kind: 'lidar',
      layout: headerLayout(PROFILE),
      packetsPerFrame: packetsPerFrame(MODE),
      periodMs: 1000 / nominalPacketRate(MODE),
      recordJitter: false,
    },
    { id: imuId(index), kind: 'sink' },
  ]);
}

async function addMember(
  ctx: BenchContext,
  index: number,
  receiver: Receiver,
  ports: Record<string, number>,
): Promise<Member> {
  const host = `127.0.0.${FIRST_HOST + index}`;
  // Start-up under the load of an already streaming fleet can be slow; allow it.
  const sensor = await spawnSensor({ host, dataDir: ctx.dataDir(`fleet-${index}`), readyTimeoutMs: 60_000 });
  const sentAt = process.hrtime.bigint();
  await configureStream(sensor.baseUrl, {
    udp_dest: '127.0.0.1',
    udp_port_lidar: ports[lidarId(index)],
    udp_port_imu: ports[imuId(index)],
    lidar_mode: MODE,
    udp_profile_lidar: PROFILE,
  });
  await receiver.waitForInit(lidarId(index), sentAt, 30_000);
  return { index, sensor, receiver };
}

/** Grows the fleet to `size`: receivers and ports first (sequentially), then the sensors in parallel. */
async function grow(ctx: BenchContext, size: number, members: Member[], receivers: Receiver[]): Promise<void> {
  const planned: { index: number; receiver: Receiver; ports: Record<string, number> }[] = [];
  for (let index = members.length; index < size; index++) {
    const receiver = await receiverFor(index, receivers);
    planned.push({ index, receiver, ports: await openPorts(index, receiver) });
  }
  const results = await Promise.allSettled(planned.map((p) => addMember(ctx, p.index, p.receiver, p.ports)));
  for (const result of results) if (result.status === 'fulfilled') members.push(result.value);
  const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failure) throw failure.reason;
}

async function measure(members: Member[], receivers: Receiver[], windowS: number): Promise<StepResult> {
  const nominal = nominalPacketRate(MODE);
  const sensorMeters = members.map((m) => new CpuMeter(m.sensor.pid).start());
  const receiverMeters = receivers.map((r) => new CpuMeter(r.pid).start());
  const machineBefore = machineCpu();
  const drops = udpReceiveBufferErrors();
  await Promise.all(receivers.map((r) => r.startWindow()));
  await sleep(windowS * 1000);
  const reports = Object.assign({}, ...(await Promise.all(receivers.map((r) => r.stopWindow()))));
  const machineAfter = machineCpu();
  const ratios = members.map((m) => reports[lidarId(m.index)].rate / nominal);
  const worstRatio = ratios.reduce((a, b) => (Math.abs(b - 1) > Math.abs(a - 1) ? b : a), 1);
  return {
    sensors: members.length,
    worstRatio,
    bestRatio: ratios.reduce((a, b) => (Math.abs(b - 1) < Math.abs(a - 1) ? b : a), worstRatio),
    lost: members.reduce((sum, m) => sum + reports[lidarId(m.index)].lost, 0),
    receiveBufferDrops: udpReceiveBufferErrors() - drops,
    machineBusy: (machineAfter.busy - machineBefore.busy) / (machineAfter.total - machineBefore.total),
    sensorsCpu: sensorMeters.reduce((sum, meter) => sum + meter.perSecond(), 0),
    receiversCpu: receiverMeters.reduce((sum, meter) => sum + meter.perSecond(), 0),
    ok: ratios.every((ratio) => Math.abs(ratio - 1) <= TOLERANCE),
  };
}

function stepRow(s: StepResult): TableRow {
  return {
    figure: `Fleet step: ${s.sensors} sensors`,
    value:
      `worst stream ${fmt(s.worstRatio, 4)} of nominal; lost ${s.lost}${s.receiveBufferDrops ? ` (rcvbuf ${s.receiveBufferDrops})` : ''}; ` +
      `machine CPU ${fmt(s.machineBusy * 100, 0)}%; sensors ${fmt(s.sensorsCpu)} + receivers ${fmt(s.receiversCpu)} CPU s/s`,
    reference: `${nominalPacketRate(MODE)} pkt/s each`,
    ratio: fmt(s.worstRatio, 4),
    target: `every stream ±${TOLERANCE * 100}%`,
    met: metText(s.ok),
  };
}

export async function benchFleet(ctx: BenchContext): Promise<Section> {
  const listed = ctx.quick ? [4, 8] : [2, 4, 8, 12, 16, 20, 24, 32, 40, 48, 64];
  const steps = [...listed];
  if (!ctx.quick) for (let n = 64 + GROWTH_BEYOND; n <= MAX_SENSORS; n += GROWTH_BEYOND) steps.push(n);
  const windowS = ctx.quick ? 1.5 : 5;
  const settleMs = ctx.quick ? 1000 : 2000;
  const budgetMs = ctx.quick ? 20_000 : 120_000;
  const startedAt = performance.now();
  const members: Member[] = [];
  const receivers: Receiver[] = [];
  const results: StepResult[] = [];
  let limit = 'all steps passed';
  let lastStepMs = 0;
  try {
    for (const size of steps.filter((n) => n <= MAX_SENSORS)) {
      const elapsed = performance.now() - startedAt;
      // Adding more sensors takes longer than the last step did: stop before overrunning the budget.
      if (elapsed + lastStepMs * 1.5 > budgetMs) {
        limit = `time budget (${budgetMs / 1000} s) reached before ${size} sensors`;
        break;
      }
      const stepStart = performance.now();
      ctx.log(`fleet: ${size} sensors`);
      try {
        await grow(ctx, size, members, receivers);
      } catch (error) {
        limit = `a sensor failed to start streaming at ${size}: ${(error as Error).message.split('\n')[0].slice(0, 120)}`;
        break;
      }
      await sleep(settleMs);
      const result = await measure(members, receivers, windowS);
      results.push(result);
      lastStepMs = performance.now() - stepStart;
      if (!result.ok) {
        limit = `at ${size} sensors a stream ran at ${fmt(result.worstRatio, 4)} of nominal (machine CPU ${fmt(result.machineBusy * 100, 0)}%)`;
        break;
      }
    }
  } finally {
    await Promise.all([...members.map((m) => m.sensor.stop()), ...receivers.map((r) => r.close())]);
  }
  const sustained = results.filter((r) => r.ok).reduce((max, r) => Math.max(max, r.sensors), 0);
  const met = sustained >= FLEET_TARGET;
  const figures: Figure[] = [
    {
      name: `Fleet: OS-1-128 ${MODE} sensors sustained (every stream within ${TOLERANCE * 100}%)`,
      value: sustained,
      unit: 'sensors',
      target: `>= ${FLEET_TARGET}`,
      met,
      note: `stopped: ${limit}`,
    },
    ...results.map((r) => ({
      name: `Fleet: ${r.sensors} sensors, worst stream rate / nominal`,
      value: r.worstRatio,
      unit: 'ratio',
      note: `machine CPU ${fmt(r.machineBusy * 100, 0)}%, sensors ${fmt(r.sensorsCpu)} CPU s/s, receivers ${fmt(r.receiversCpu)} CPU s/s, lost ${r.lost}`,
    })),
  ];
  const rows: TableRow[] = [
    {
      figure: `Fleet: OS-1-128 ${MODE} sensors sustained`,
      value: `${sustained} (stopped: ${limit})`,
      reference: '',
      ratio: '',
      target: `>= ${FLEET_TARGET}`,
      met: metText(met),
    },
    ...results.map(stepRow),
  ];
  return { figures, rows };
}
