/**
 * `lidar-sensor fleet`: plans the units, starts them in the chosen process model, applies each new
 * unit's first-boot configuration, serves the aggregated /metrics, and stops everything on
 * SIGINT/SIGTERM.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino, { type Logger } from 'pino';
import { ChildUnit } from './child-unit.js';
import { readFleetFile, FleetFileError } from './fleet-file.js';
import { FLEET_HELP, type FleetOptions, type FleetReplay, parseFleetOptions } from './fleet-options.js';
import { UsageError } from '../model/index.js';
import { startFleetServer } from './fleet-server.js';
import { unitUrl, type FleetUnit } from './fleet-unit.js';
import { SharedUnit, type StartUnit } from './shared-unit.js';
import { FleetPlanError, planUnits, type RecordedSensor, type UnitPlan } from './unit-plan.js';
import { loadRecording, RecordingError } from '../udp/replay/index.js';

/** Marks a data directory whose first-boot configuration has been applied (it is never applied again). */
const FIRST_BOOT_MARKER = '.fleet-first-boot-done';

class FleetStartError extends Error {}

/**
 * Every sensor of a fleet replay, checked before any unit starts (a metadata file that fits no sensor
 * of the capture is one line, not a unit that dies), and two files of one sensor refused.
 */
function checkRecordings(replay: FleetReplay): RecordedSensor[] {
  const sensors = replay.metadata.map((metadata) => {
    const r = loadRecording(replay.file, metadata);
    return { product: r.metadata.sensorInfo.prod_line, serial: r.metadata.sensorInfo.prod_sn, metadata };
  });
  const bySerial = new Map<string, string>();
  for (const s of sensors) {
    const other = bySerial.get(s.serial);
    if (other) throw new RecordingError(`${other} and ${s.metadata} describe the same sensor (serial ${s.serial})`);
    bySerial.set(s.serial, s.metadata);
  }
  return sensors.map(({ product, serial }) => ({ product, serial }));
}

/** Who a fleet file's replay unit is: its recording's sensor (read and checked before any unit starts). */
export function recordedSensor(replay: string, metadata: string | undefined): RecordedSensor {
  const info = loadRecording(replay, metadata).metadata.sensorInfo;
  return { product: info.prod_line, serial: info.prod_sn };
}

async function applyFirstBootConfig(plan: UnitPlan): Promise<void> {
  const marker = join(plan.dataDir, FIRST_BOOT_MARKER);
  if (!plan.firstBootConfig || existsSync(marker)) return;
  const response = await fetch(unitUrl(plan, '/api/v1/sensor/config?reinit=true&persist=true'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(plan.firstBootConfig),
  });
  if (response.status !== 204)
    throw new FleetStartError(
      `unit ${plan.name}: its first-boot configuration was refused (${response.status}): ${await response.text()}`,
    );
  writeFileSync(marker, `${JSON.stringify(plan.firstBootConfig)}\n`);
}

function createUnits(options: FleetOptions, plans: UnitPlan[], log: Logger, startUnit: StartUnit): FleetUnit[] {
  if (options.processModel === 'shared') return plans.map((plan) => new SharedUnit(plan, log, startUnit));
  // The same program this supervisor runs (dist/cli.js, or the TypeScript source under tsx).
  const command = [process.execPath, ...process.execArgv, process.argv[1]];
  return plans.map((plan) => new ChildUnit(plan, log, command));
}

function prepare(argv: readonly string[]): { options: FleetOptions; plans: UnitPlan[] } | number {
  try {
    const options = parseFleetOptions(argv);
    if (options === 'help') {
      process.stdout.write(`${FLEET_HELP}\n`);
      return 0;
    }
    const file = options.file === undefined ? null : readFleetFile(options.file);
    const recorded = options.replay ? checkRecordings(options.replay) : [];
    return { options, plans: planUnits(options, file, recorded, recordedSensor) };
  } catch (error) {
    if (error instanceof UsageError) process.stderr.write(`lidar-sensor fleet: ${error.message}\n\n${FLEET_HELP}\n`);
    else if (error instanceof FleetFileError || error instanceof FleetPlanError || error instanceof RecordingError)
      process.stderr.write(`lidar-sensor fleet: ${error.message}\n`);
    else throw error;
    return 2;
  }
}

/** `startUnit` starts a unit of process model `shared` (the entry point's server, src/main). */
export async function runFleetCommand(argv: readonly string[], startUnit: StartUnit): Promise<number> {
  const prepared = prepare(argv);
  if (typeof prepared === 'number') return prepared;
  const { options, plans } = prepared;
  const log = pino({ level: options.logLevel, base: { component: 'fleet' } }, pino.destination(1));
  for (const plan of plans) mkdirSync(plan.dataDir, { recursive: true });
  const units = createUnits(options, plans, log, startUnit);
  const stopAll = () => Promise.allSettled(units.map((u) => u.stop()));

  const started = await Promise.allSettled(
    units.map(async (unit) => {
      await unit.start();
      await applyFirstBootConfig(unit.plan);
    }),
  );
  const notReady = started.flatMap((result, i) =>
    result.status === 'rejected' ? [{ name: plans[i].name, problem: (result.reason as Error).message }] : [],
  );
  if (notReady.length === units.length) {
    await stopAll();
    process.stderr.write(
      `lidar-sensor fleet: none of the ${units.length} units started:\n  ${notReady.map((u) => `${u.name}: ${u.problem}`).join('\n  ')}\n`,
    );
    return 1;
  }
  let endpoint;
  try {
    endpoint = await startFleetServer(units, options.metricsAddress, options.metricsPort);
  } catch (error) {
    await stopAll();
    process.stderr.write(
      `lidar-sensor fleet: the fleet endpoint cannot listen on ${options.metricsAddress}:${options.metricsPort}: ${(error as Error).message}\n`,
    );
    return 1;
  }
  // Units that cannot start are named with their reason; they are tried again, and /units follows them.
  log[notReady.length ? 'warn' : 'info'](
    {
      metrics: `${endpoint.url}/metrics`,
      units: plans.map((p) => ({ name: p.name, url: unitUrl(p) })),
      notReady,
      processModel: options.processModel,
    },
    notReady.length
      ? `fleet ready, except ${notReady.length} of ${units.length} units: ${notReady.map((u) => `${u.name} (${u.problem})`).join('; ')}`
      : 'fleet ready',
  );
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      log.info({ signal }, 'stopping the fleet');
      resolve();
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
  // The units first: one that ends now is being stopped, not started again.
  const stopped = stopAll();
  await new Promise<void>((resolve) => endpoint.server.close(() => resolve()));
  await stopped;
  return 0;
}
