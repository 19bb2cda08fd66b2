/**
 * Fault injection's cost on the data plane: lidar 2048x10 packet rate, jitter, loss and server CPU
 * of a unit without a fault plane, of a unit with the control listener but no rule, and of that
 * unit with a 1% drop rule (whose loss is the point; its jitter and CPU are the cost).
 */
import type { BenchContext } from './context.js';
import { freePort } from '../test/helpers/cli-process.js';
import { nominalPacketRate } from './packet-fields.js';
import { sleep } from './processes.js';
import { CpuMeter } from './proc-stats.js';
import type { StreamReport } from './receiver-protocol.js';
import { fmt, type Figure, type Section, type TableRow } from './report.js';
import { spawnSensor } from './sensor-process.js';
import { LIDAR, StreamRig } from './stream-rig.js';

const MODE = '2048x10';
const PROFILE = 'RNG19_RFL8_SIG16_NIR16';
const DROP_RATE = 0.01;

interface Measured {
  label: string;
  stream: StreamReport;
  cpuPerSecond: number;
}

async function measure(rig: StreamRig, label: string, seconds: number): Promise<Measured> {
  const cpu = new CpuMeter(rig.sensor.pid).start();
  await rig.receiver.startWindow();
  await sleep(seconds * 1000);
  const streams = await rig.receiver.stopWindow();
  return { label, stream: streams[LIDAR], cpuPerSecond: cpu.perSecond() };
}

function section(m: Measured, expectedLoss: number): Section {
  const nominal = nominalPacketRate(MODE);
  const label = `Faults ${MODE} ${m.label}`;
  const j = m.stream.jitterMs;
  const lossShare = m.stream.lost / Math.max(1, m.stream.packets + m.stream.lost);
  const figures: Figure[] = [
    {
      name: `${label} packets/s`,
      value: m.stream.rate,
      unit: 'packets/s',
      reference: nominal,
      ratio: m.stream.rate / nominal,
    },
    { name: `${label} jitter p50`, value: j?.p50 ?? null, unit: 'ms' },
    { name: `${label} jitter p99`, value: j?.p99 ?? null, unit: 'ms' },
    { name: `${label} lost share`, value: lossShare, unit: 'share', reference: expectedLoss },
    { name: `${label} server CPU`, value: m.cpuPerSecond, unit: 'CPU s/s' },
  ];
  const row: TableRow = {
    figure: label,
    value:
      `${fmt(m.stream.rate, 1)} pkt/s; jitter p50/p99 ${fmt(j?.p50)}/${fmt(j?.p99)} ms; ` +
      `lost ${m.stream.lost} (${fmt(lossShare * 100, 2)}%); CPU ${fmt(m.cpuPerSecond, 3)} s/s`,
    reference: `${nominal} pkt/s nominal; ${expectedLoss * 100}% loss expected`,
    ratio: fmt(m.stream.rate / nominal, 4),
    target: '',
    met: '',
  };
  return { figures, rows: [row] };
}

export async function benchFaults(ctx: BenchContext): Promise<Section> {
  const windowS = ctx.quick ? 1.5 : 4;
  const settleMs = ctx.quick ? 300 : 1000;
  const results: Section[] = [];

  const plain = await StreamRig.start(ctx, '127.0.0.1');
  try {
    await plain.configure(MODE, PROFILE);
    await sleep(settleMs);
    results.push(section(await measure(plain, 'no fault plane', windowS), 0));
  } finally {
    await plain.close();
  }

  const controlPort = await freePort();
  const control = `http://127.0.0.1:${controlPort}`;
  const sensor = await spawnSensor({
    host: '127.0.0.1',
    dataDir: ctx.dataDir('faults'),
    args: ['--control', `127.0.0.1:${controlPort}`],
  });
  const rig = await StreamRig.start(ctx, '127.0.0.1', sensor);
  try {
    await rig.configure(MODE, PROFILE);
    await sleep(settleMs);
    results.push(section(await measure(rig, 'control plane, no rule', windowS), 0));
    const rule = { selector: { plane: 'udp', stream: 'lidar' }, action: { type: 'drop', rate: DROP_RATE } };
    const res = await fetch(`${control}/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(rule),
    });
    if (res.status !== 201) throw new Error(`adding the drop rule failed: ${res.status} ${await res.text()}`);
    await sleep(settleMs);
    results.push(section(await measure(rig, `${DROP_RATE * 100}% drop rule`, windowS), DROP_RATE));
  } finally {
    await rig.close();
  }
  return { figures: results.flatMap((s) => s.figures), rows: results.flatMap((s) => s.rows) };
}
