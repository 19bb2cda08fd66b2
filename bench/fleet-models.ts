/**
 * (5b) Fleet process models, compared: `lidar-sensor fleet --process-model process` (a supervisor and
 * one child process per unit) against `--process-model shared` (every unit in one process, each with
 * one data-plane worker thread for all). For growing fleet sizes, each started fresh, until a size fails: is every stream of
 * OS-1-128 at 1024x10 within 0.5 % of nominal, and what do the units cost in CPU and memory (PSS:
 * shared pages such as the node binary counted once, not per process)?
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { CLI_PATH, freePort } from '../test/helpers/cli-process.js';
import type { BenchContext } from './context.js';
import { imuId, lidarId, MODE, openPorts, PROFILE, receiverFor, TOLERANCE } from './fleet.js';
import { nominalPacketRate } from './packet-fields.js';
import { sleep, stopProcess, track } from './processes.js';
import { CpuMeter, machineCpu, pssBytes, rssBytes } from './proc-stats.js';
import { Receiver } from './receiver-client.js';
import { fmt, metText, type Figure, type Section, type TableRow } from './report.js';
import { configureStream } from './sensor-api.js';

type Model = 'process' | 'shared';
const MODELS: readonly Model[] = ['process', 'shared'];
/** Units of this benchmark listen on 127.0.20.(1 + i): apart from the other fleet benchmark's 127.0.0.x. */
const BASE_ADDRESS = '127.0.20.1';
const MB = 1024 * 1024;

interface StepResult {
  model: Model;
  sensors: number;
  worstRatio: number;
  lost: number;
  machineBusy: number;
  /** CPU seconds per second of the whole fleet (supervisor and units), and per unit. */
  fleetCpu: number;
  /** CPU seconds per second of the benchmark's receivers: not the product, but the same machine. */
  receiversCpu: number;
  cpuPerSensor: number;
  pssPerSensorMb: number;
  rssPerSensorMb: number;
  startupS: number;
  ok: boolean;
}

interface RunningFleet {
  supervisor: ChildProcess;
  endpoint: string;
  units: { name: string; url: string; pid: number }[];
}

async function startFleet(ctx: BenchContext, model: Model, size: number): Promise<RunningFleet> {
  const port = await freePort(BASE_ADDRESS);
  const args = [
    CLI_PATH,
    'fleet',
    '--count',
    String(size),
    '--process-model',
    model,
    '--base-address',
    BASE_ADDRESS,
    '--port',
    String(port),
  ];
  args.push('--data-root', ctx.dataDir(`fleet-${model}-${size}`), '--metrics-port', '0', '--log-level', 'info');
  const supervisor = track(spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] }));
  let output = '';
  const endpoint = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`fleet of ${size} not ready within 120 s`)), 120_000);
    const onData = (d: Buffer) => {
      output = (output + d.toString()).slice(-20_000);
      const match = /"metrics":"([^"]+)\/metrics"/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    supervisor.stdout?.on('data', onData);
    supervisor.stderr?.on('data', onData);
    supervisor.once('exit', (code) => reject(new Error(`fleet exited with ${code}: ${output.slice(-500)}`)));
  });
  const units = (await (await fetch(`${endpoint}/units`)).json()) as RunningFleet['units'];
  return { supervisor, endpoint, units };
}

/** Every process of the fleet: the supervisor, and in the process model its children. */
function fleetPids(fleet: RunningFleet): number[] {
  return [...new Set([fleet.supervisor.pid as number, ...fleet.units.map((u) => u.pid)])];
}

async function runStep(
  ctx: BenchContext,
  model: Model,
  size: number,
  windowS: number,
  settleMs: number,
): Promise<StepResult> {
  const receivers: Receiver[] = [];
  let fleet: RunningFleet | null = null;
  try {
    const ports: Record<string, number>[] = [];
    const receiverOf: Receiver[] = [];
    for (let i = 0; i < size; i++) {
      receiverOf[i] = await receiverFor(i, receivers);
      ports.push(await openPorts(i, receiverOf[i]));
    }
    const startedAt = performance.now();
    fleet = await startFleet(ctx, model, size);
    const startupS = (performance.now() - startedAt) / 1000;
    const running = fleet;
    const sentAt = process.hrtime.bigint();
    await Promise.all(
      running.units.map(async (unit, i) => {
        const receiver = receiverOf[i];
        await configureStream(unit.url, {
          udp_dest: '127.0.0.1',
          udp_port_lidar: ports[i][lidarId(i)],
          udp_port_imu: ports[i][imuId(i)],
          lidar_mode: MODE,
          udp_profile_lidar: PROFILE,
        });
        await receiver.waitForInit(lidarId(i), sentAt, 60_000);
      }),
    );
    await sleep(settleMs);
    const pids = fleetPids(running);
    const meters = pids.map((pid) => new CpuMeter(pid).start());
    const receiverMeters = receivers.map((r) => new CpuMeter(r.pid).start());
    const machineBefore = machineCpu();
    await Promise.all(receivers.map((r) => r.startWindow()));
    await sleep(windowS * 1000);
    const reports = Object.assign({}, ...(await Promise.all(receivers.map((r) => r.stopWindow()))));
    const machineAfter = machineCpu();
    const fleetCpu = meters.reduce((sum, meter) => sum + meter.perSecond(), 0);
    const receiversCpu = receiverMeters.reduce((sum, meter) => sum + meter.perSecond(), 0);
    const pss = pids.reduce((sum, pid) => sum + pssBytes(pid), 0);
    const rss = pids.reduce((sum, pid) => sum + rssBytes(pid), 0);
    const nominal = nominalPacketRate(MODE);
    const ratios = running.units.map((_, i) => reports[lidarId(i)].rate / nominal);
    return {
      model,
      sensors: size,
      worstRatio: ratios.reduce((a, b) => (Math.abs(b - 1) > Math.abs(a - 1) ? b : a), 1),
      lost: running.units.reduce((sum, _, i) => sum + reports[lidarId(i)].lost, 0),
      machineBusy: (machineAfter.busy - machineBefore.busy) / (machineAfter.total - machineBefore.total),
      fleetCpu,
      receiversCpu,
      cpuPerSensor: fleetCpu / size,
      pssPerSensorMb: pss / size / MB,
      rssPerSensorMb: rss / size / MB,
      startupS,
      ok: ratios.every((ratio) => Math.abs(ratio - 1) <= TOLERANCE),
    };
  } finally {
    if (fleet) await stopProcess(fleet.supervisor, 15_000);
    await Promise.all(receivers.map((r) => r.close()));
  }
}

function stepRow(s: StepResult): TableRow {
  return {
    figure: `Fleet (${s.model} model): ${s.sensors} sensors`,
    value:
      `worst stream ${fmt(s.worstRatio, 4)}; lost ${s.lost}; machine CPU ${fmt(s.machineBusy * 100, 0)}% ` +
      `(units ${fmt(s.fleetCpu)}, receivers ${fmt(s.receiversCpu)} CPU s/s); ` +
      `per sensor ${fmt(s.cpuPerSensor, 3)} CPU s/s, PSS ${fmt(s.pssPerSensorMb, 1)} MB (RSS ${fmt(s.rssPerSensorMb, 1)} MB); started in ${fmt(s.startupS, 1)} s`,
    reference: `${nominalPacketRate(MODE)} pkt/s each`,
    ratio: fmt(s.worstRatio, 4),
    target: `every stream ±${TOLERANCE * 100}%`,
    met: metText(s.ok),
  };
}

/** A step that misses the tolerance is run once more: on a shared machine one bad window is often someone else's load. */
async function runStepWithRetry(
  ctx: BenchContext,
  model: Model,
  size: number,
  windowS: number,
  settleMs: number,
): Promise<StepResult & { retried: boolean }> {
  const first = await runStep(ctx, model, size, windowS, settleMs);
  if (first.ok) return { ...first, retried: false };
  ctx.log(`fleet models: ${model}, ${size} sensors missed (${fmt(first.worstRatio, 4)}); once more`);
  return { ...(await runStep(ctx, model, size, windowS, settleMs)), retried: true };
}

/** The target for a fleet on 2 cores (both models are measured against it; docs/benchmarks.md, Targets). */
export const FLEET_UNITS_TARGET = 40;
export const CPU_PER_UNIT_TARGET = 0.025;
/** Past the listed sizes the fleet grows by this many units per step until a step fails. */
const GROWTH_BEYOND = 16;
/** 127.0.20.1 + i stays inside 127.0.20.0/24 … 127.0.21.x: far below the loopback's end. */
const MAX_UNITS = 400;

function* fleetSizes(quick: boolean): Generator<number> {
  const listed = quick ? [8, 16] : [8, 16, 24, 32, 40, 48, 64];
  yield* listed;
  if (quick) return;
  for (let size = listed[listed.length - 1] + GROWTH_BEYOND; size <= MAX_UNITS; size += GROWTH_BEYOND) yield size;
}

/** The knee: the largest size that held and the first that did not, with the units' own CPU at the largest. */
function kneeText(steps: StepResult[]): string {
  const held = steps.filter((r) => r.ok);
  const best = held.reduce<StepResult | undefined>((a, r) => (!a || r.sensors > a.sensors ? r : a), undefined);
  const failed = steps.find((r) => !r.ok && (!best || r.sensors > best.sensors));
  const units = best
    ? `${best.sensors} held (units ${fmt(best.fleetCpu)} CPU s/s = ${fmt(best.cpuPerSensor, 3)} per unit, machine ${fmt(best.machineBusy * 100, 0)}%)`
    : 'none held';
  return failed ? `${units}; ${failed.sensors} failed (worst stream ${fmt(failed.worstRatio, 4)})` : units;
}

export async function benchFleetModels(ctx: BenchContext): Promise<Section> {
  const windowS = ctx.quick ? 2 : 5;
  const settleMs = ctx.quick ? 1000 : 2000;
  const budgetMs = ctx.quick ? 120_000 : 600_000;
  const startedAt = performance.now();
  const results = new Map<Model, (StepResult & { retried: boolean })[]>(MODELS.map((m) => [m, []]));
  const limits = new Map<Model, string>(MODELS.map((m) => [m, 'all steps passed']));
  const active = new Set<Model>(MODELS);
  // The models take turns at each size, so both meet the same background load; each grows until a step fails.
  for (const size of fleetSizes(ctx.quick)) {
    if (active.size === 0) break;
    for (const model of MODELS) {
      if (!active.has(model)) continue;
      if (performance.now() - startedAt > budgetMs) {
        limits.set(model, `time budget (${budgetMs / 1000} s) reached before ${size} sensors`);
        active.delete(model);
        continue;
      }
      ctx.log(`fleet models: ${model}, ${size} sensors`);
      try {
        const result = await runStepWithRetry(ctx, model, size, windowS, settleMs);
        results.get(model)?.push(result);
        if (!result.ok) {
          limits.set(model, `at ${size} sensors a stream ran at ${fmt(result.worstRatio, 4)} of nominal (twice)`);
          active.delete(model);
        }
      } catch (error) {
        limits.set(
          model,
          `${size} sensors did not all stream: ${(error as Error).message.split('\n')[0].slice(0, 120)}`,
        );
        active.delete(model);
      }
    }
  }
  const figures: Figure[] = [];
  const rows: TableRow[] = [];
  for (const model of MODELS) {
    const steps = results.get(model) ?? [];
    const held = steps.filter((r) => r.ok);
    const sustained = held.reduce((max, r) => Math.max(max, r.sensors), 0);
    const atKnee = held.find((r) => r.sensors === sustained);
    const limit = limits.get(model) ?? '';
    const unitsMet = sustained >= FLEET_UNITS_TARGET;
    const cpuMet = atKnee ? atKnee.cpuPerSensor <= CPU_PER_UNIT_TARGET : undefined;
    figures.push({
      name: `Fleet (${model} model): OS-1-128 ${MODE} sensors sustained`,
      value: sustained,
      unit: 'sensors',
      target: `>= ${FLEET_UNITS_TARGET}`,
      met: unitsMet,
      note: `knee: ${kneeText(steps)}; stopped: ${limit}`,
    });
    figures.push({
      name: `Fleet (${model} model): CPU per unit at the knee`,
      value: atKnee?.cpuPerSensor ?? null,
      unit: 'CPU s/s',
      target: `<= ${CPU_PER_UNIT_TARGET}`,
      met: cpuMet,
      note: atKnee ? `${atKnee.sensors} units` : 'no step held',
    });
    for (const r of steps) {
      figures.push({
        name: `Fleet (${model} model), ${r.sensors} sensors: CPU per sensor`,
        value: r.cpuPerSensor,
        unit: 'CPU s/s',
        note: `worst stream ${fmt(r.worstRatio, 4)}`,
      });
      figures.push({
        name: `Fleet (${model} model), ${r.sensors} sensors: PSS per sensor`,
        value: r.pssPerSensorMb,
        unit: 'MB',
        note: `RSS ${fmt(r.rssPerSensorMb, 1)} MB`,
      });
    }
    rows.push({
      figure: `Fleet (${model} model): sensors sustained (knee)`,
      value: `${sustained}; knee: ${kneeText(steps)} (stopped: ${limit})`,
      reference: `receivers: ${Receiver.countingKind()}`,
      ratio: '',
      target: `>= ${FLEET_UNITS_TARGET} units, <= ${CPU_PER_UNIT_TARGET} CPU s/s per unit`,
      met: metText(unitsMet && cpuMet === true),
    });
    rows.push(...steps.map((r) => ({ ...stepRow(r), figure: `${stepRow(r).figure}${r.retried ? ' (retried)' : ''}` })));
  }
  return { figures, rows };
}
