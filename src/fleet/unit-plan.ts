/**
 * From the fleet options (and file) to one plan per unit: name, address, port, data directory,
 * serial, the unit's command-line options and its first-boot configuration. Pure.
 */
import { join, resolve } from 'node:path';
import { formatIpv4, parseIpv4 } from '../model/index.js';
import type { FleetFile, UnitEntry } from './fleet-file.js';
import type { FleetOptions, FleetReplay } from './fleet-options.js';

export interface UnitPlan {
  name: string;
  address: string;
  port: number;
  dataDir: string;
  product: string;
  serial: string | undefined;
  /** The unit's options, as `lidar-sensor` takes them. */
  args: string[];
  /** Set (reinit + persist) once, on the first boot of a new data directory; null: nothing. */
  firstBootConfig: Record<string, unknown> | null;
}

export class FleetPlanError extends Error {}

/** `base` + `offset`, refusing to run past 255.255.255.255. */
export function nthAddress(base: string, offset: number): string {
  const start = parseIpv4(base);
  if (start === undefined) throw new FleetPlanError(`not an IPv4 address: ${JSON.stringify(base)}`);
  const value = start + offset;
  if (value > 0xffffffff) throw new FleetPlanError(`address ${base} + ${offset} is past 255.255.255.255`);
  return formatIpv4(value);
}

/** Who each unit of a fleet replay is (from its metadata, checked by the supervisor before the start). */
export interface RecordedSensor {
  product: string;
  serial: string;
}

/**
 * @param recorded with `--replay`: the sensor of each `--metadata`, in order
 * @param recordingOf who the recording a fleet file's unit replays (`replay:`, and `--metadata` among its `args`)
 *   says the unit is: that unit's product and serial are the recording's, not the configured ones
 */
export function planUnits(
  options: FleetOptions,
  file: FleetFile | null,
  recorded: RecordedSensor[] = [],
  recordingOf?: (replay: string, metadata: string | undefined) => RecordedSensor,
): UnitPlan[] {
  if (options.replay) return checkDistinct(planReplayUnits(options, options.replay, recorded));
  return checkDistinct(planListedUnits(options, file, recordingOf));
}

/** Unit n replays the sensor of the n-th metadata file, on the shared timetable. */
function planReplayUnits(options: FleetOptions, replay: FleetReplay, recorded: RecordedSensor[]): UnitPlan[] {
  return replay.metadata.map((metadata, index) => {
    const name = `unit-${index + 1}`;
    const address = nthAddress(options.firstAddress, index);
    const dataDir = join(options.dataRoot, name);
    const args = [
      ...['--host', address, '--port', String(options.port), '--data-dir', dataDir, '--log-level', options.logLevel],
      ...['--replay', resolve(replay.file), '--metadata', resolve(metadata)],
      ...['--replay-timetable', String(replay.timetableMs)],
      ...(replay.loop ? ['--replay-loop'] : []),
      ...(replay.rate !== undefined ? ['--replay-rate', replay.rate] : []),
    ];
    const sensor = recorded[index];
    return {
      name,
      address,
      port: options.port,
      dataDir,
      product: sensor?.product ?? 'recorded',
      serial: sensor?.serial,
      args,
      firstBootConfig: null,
    };
  });
}

function planListedUnits(
  options: FleetOptions,
  file: FleetFile | null,
  recordingOf?: (replay: string, metadata: string | undefined) => RecordedSensor,
): UnitPlan[] {
  const listed = file?.units ?? [];
  const count = Math.max(options.count ?? 0, listed.length);
  const defaults = file?.defaults ?? {};
  const plans: UnitPlan[] = [];
  for (let index = 0; index < count; index++) {
    const entry: UnitEntry = { ...defaults, ...(listed[index] ?? {}) };
    const name = entry.name ?? `unit-${index + 1}`;
    const address = entry.address ?? nthAddress(options.firstAddress, index);
    const port = entry.port ?? options.port;
    const product = entry.product ?? options.product;
    const serial =
      entry.serial ??
      (options.firstSerial === undefined ? undefined : String(BigInt(options.firstSerial) + BigInt(index)));
    const dataDir = join(options.dataRoot, name);
    const args = [
      '--host',
      address,
      '--port',
      String(port),
      '--data-dir',
      dataDir,
      '--product',
      product,
      '--log-level',
      options.logLevel,
    ];
    if (serial !== undefined) args.push('--serial', serial);
    if (entry.replay) args.push('--replay', entry.replay);
    args.push(...(entry.args ?? []));
    const metadataAt = entry.args?.indexOf('--metadata') ?? -1;
    // A replay unit is the recorded sensor (--product and --serial are ignored by it): list it as that.
    const recorded = entry.replay
      ? recordingOf?.(entry.replay, metadataAt >= 0 ? entry.args?.[metadataAt + 1] : undefined)
      : undefined;
    const firstBoot = { ...(entry.mode ? { lidar_mode: entry.mode } : {}), ...(entry.config ?? {}) };
    plans.push({
      name,
      address,
      port,
      dataDir,
      product: recorded?.product ?? product,
      serial: recorded?.serial ?? serial,
      args,
      firstBootConfig: Object.keys(firstBoot).length ? firstBoot : null,
    });
  }
  return plans;
}

function checkDistinct(plans: UnitPlan[]): UnitPlan[] {
  const seen = new Map<string, string>();
  for (const plan of plans) {
    const where = `${plan.address}:${plan.port}`;
    const clash = seen.get(where) ?? seen.get(plan.name);
    if (clash)
      throw new FleetPlanError(
        `units ${clash} and ${plan.name} share ${seen.has(where) ? where : 'a name'}; each unit needs its own address and name`,
      );
    seen.set(where, plan.name);
    seen.set(plan.name, plan.name);
  }
  return plans;
}
