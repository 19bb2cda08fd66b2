/**
 * Options of `lidar-sensor fleet`: how many units, where (addresses, port, data directories), and how
 * they run (process model, the supervisor's aggregated /metrics endpoint).
 */
import { parseArgs } from 'node:util';

export type ProcessModel = 'process' | 'shared';
export const PROCESS_MODELS: readonly ProcessModel[] = ['process', 'shared'];

export interface FleetOptions {
  count: number | undefined;
  file: string | undefined;
  product: string;
  baseAddress: string;
  port: number;
  dataRoot: string;
  serialBase: string | undefined;
  processModel: ProcessModel;
  metricsAddress: string;
  /** 0: a free port chosen by the OS (printed at start). */
  metricsPort: number;
  logLevel: string;
  /** `--replay FILE`: one unit per `--metadata`, each replaying its sensor of the capture. */
  replay: FleetReplay | undefined;
}

/** A capture of several sensors replayed by one unit each, all on one timetable. */
export interface FleetReplay {
  file: string;
  metadata: string[];
  loop: boolean;
  rate: string | undefined;
  /** Unix time (ms) the shared timetable counts from: the supervisor's start. */
  timetableMs: number;
}

export class FleetUsageError extends Error {}

export const FLEET_HELP = `Usage: lidar-sensor fleet (--count N | --file FLEET.yaml) [options]
       lidar-sensor fleet --replay CAPTURE --metadata A.json --metadata B.json … [options]

Starts many simulated sensors, each a complete unit on its own address with its own data directory,
serial and identity, and supervises them.

  --count N                 number of units (with --file: units beyond the file's list use the defaults)
  --file FILE               fleet file (YAML or JSON) listing units: name, product, serial, address, port,
                            mode (lidar_mode on first boot), config (first boot), replay, args
  --product MODEL           product model of units that name none (default OS-1-128)
  --first-address ADDRESS   IP address of the first unit; unit n gets ADDRESS + n (default 127.0.1.1)
                            (--base-address, its former name, is still accepted)
  --port PORT               HTTP port of every unit (default 80, like a real unit)
  --data-root DIR           unit n keeps its data in DIR/<name> (default ./fleet-data)
  --first-serial DIGITS     serial number of the first unit; unit n gets DIGITS + n (default: each unit
                            generates and keeps its own) (--serial-base, its former name, is still accepted)
  --process-model MODEL     process: one child process per unit, restarted when it dies (default);
                            shared: every unit in this process (less memory, no crash isolation)
  --metrics-address ADDRESS address of the fleet endpoint (GET /metrics, GET /units) (default 127.0.0.1)
  --metrics-port PORT       its port; 0 = any free port (default 9464)
  --log-level LEVEL         log level of the supervisor and the units (default info)
  --replay CAPTURE          replay a capture of several sensors: one unit per --metadata, each the
                            recorded sensor that file describes, all on one timetable (docs/replay.md)
  --metadata FILE           metadata of one sensor of the capture (repeat per sensor)
  --replay-loop             replay the capture again and again (every unit at the same instants)
  --replay-rate FACTOR      replay speed (0.01..100)
  -h, --help                this text`;

function integer(name: string, text: string, min: number, max: number): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max)
    throw new FleetUsageError(`${name} must be an integer from ${min} to ${max}; got ${JSON.stringify(text)}`);
  return value;
}

export function parseFleetOptions(argv: readonly string[]): FleetOptions | 'help' {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        count: { type: 'string' },
        file: { type: 'string' },
        product: { type: 'string', default: 'OS-1-128' },
        'first-address': { type: 'string' },
        'base-address': { type: 'string' },
        port: { type: 'string', default: '80' },
        'data-root': { type: 'string', default: './fleet-data' },
        'first-serial': { type: 'string' },
        'serial-base': { type: 'string' },
        'process-model': { type: 'string', default: 'process' },
        'metrics-address': { type: 'string', default: '127.0.0.1' },
        'metrics-port': { type: 'string', default: '9464' },
        'log-level': { type: 'string', default: 'info' },
        replay: { type: 'string' },
        metadata: { type: 'string', multiple: true },
        'replay-loop': { type: 'boolean' },
        'replay-rate': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    throw new FleetUsageError((error as Error).message);
  }
  if (values.help) return 'help';
  const replay = replayOptions(values);
  if (replay && (values.count !== undefined || values.file !== undefined))
    throw new FleetUsageError('--replay starts one unit per --metadata; it does not combine with --count or --file');
  if (!replay && values.count === undefined && values.file === undefined)
    throw new FleetUsageError('give --count N, --file FLEET.yaml or --replay CAPTURE --metadata FILE …');
  const processModel = values['process-model'] as ProcessModel;
  if (!PROCESS_MODELS.includes(processModel))
    throw new FleetUsageError(
      `--process-model must be one of ${PROCESS_MODELS.join(', ')}; got ${JSON.stringify(processModel)}`,
    );
  const firstSerial = renamed(values, 'first-serial', 'serial-base');
  if (firstSerial && !/^\d{1,12}$/.test(firstSerial.value))
    throw new FleetUsageError(`${firstSerial.option} must be decimal digits; got ${JSON.stringify(firstSerial.value)}`);
  const firstAddress = renamed(values, 'first-address', 'base-address');
  return {
    count: values.count === undefined ? undefined : integer('--count', values.count, 1, 1024),
    file: values.file,
    product: values.product,
    baseAddress: firstAddress?.value ?? '127.0.1.1',
    port: integer('--port', values.port, 1, 65535),
    dataRoot: values['data-root'],
    serialBase: firstSerial?.value,
    processModel,
    metricsAddress: values['metrics-address'],
    metricsPort: integer('--metrics-port', values['metrics-port'], 0, 65535),
    logLevel: values['log-level'],
    replay,
  };
}

/** An option given by its name or by its former name (an alias kept for scripts that use it); not both. */
function renamed<K extends string>(
  values: Partial<Record<K, string | boolean | string[]>>,
  name: K,
  former: K,
): { option: string; value: string } | undefined {
  const now = values[name];
  const before = values[former];
  if (now !== undefined && before !== undefined)
    throw new FleetUsageError(`--${former} is the former name of --${name}; give one of them`);
  if (typeof now === 'string') return { option: `--${name}`, value: now };
  if (typeof before === 'string') return { option: `--${former}`, value: before };
  return undefined;
}

function replayOptions(values: {
  replay?: string;
  metadata?: string[];
  'replay-loop'?: boolean;
  'replay-rate'?: string;
}): FleetReplay | undefined {
  const metadata = values.metadata ?? [];
  if (values.replay === undefined) {
    if (metadata.length || values['replay-loop'] || values['replay-rate'] !== undefined)
      throw new FleetUsageError('--metadata, --replay-loop and --replay-rate need --replay CAPTURE');
    return undefined;
  }
  if (metadata.length === 0)
    throw new FleetUsageError('--replay needs one --metadata FILE per sensor of the capture to replay');
  return {
    file: values.replay,
    metadata,
    loop: values['replay-loop'] ?? false,
    rate: values['replay-rate'],
    timetableMs: Date.now(),
  };
}
