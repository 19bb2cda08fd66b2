/**
 * Options of `lidar-sensor fleet`: how many units, where (addresses, port, data directories), and how
 * they run (process model, the supervisor's aggregated /metrics endpoint). One table (FLEET_OPTIONS, read
 * through the option kit, src/model/util/option-kit.ts, like the unit's own) gives their type, parsing, error wording, `--help` and the
 * table in docs/fleet.md. They have no SENSOR_* variables: the units a fleet starts read those themselves.
 */
import {
  helpLine,
  helpLines,
  LOG_LEVELS,
  markdownTable,
  option,
  type OptionValues,
  parseOptionTexts,
  parsers as p,
  readOptionTexts,
  UsageError,
} from '../model/index.js';

export type ProcessModel = 'process' | 'shared';
export const PROCESS_MODELS: readonly ProcessModel[] = ['process', 'shared'];

/** A fleet option: no environment variable, one consumer (the supervisor). */
const fleetOption: typeof option = (def) => option({ ...def, environment: false });

export const FLEET_OPTIONS = {
  count: fleetOption({
    flag: 'count',
    group: 'fleet',
    valueName: 'N',
    help: "number of units (with --file: at least the file's units; more are added with the defaults)",
    parse: p.optionalWholeNumber(1, 1024),
  }),
  file: fleetOption({
    flag: 'file',
    group: 'fleet',
    valueName: 'FILE',
    help: 'fleet file (YAML or JSON) listing units: name, product, serial, address, port, mode (lidar_mode on first boot), config (first boot), replay, args',
    parse: p.optionalText,
  }),
  product: fleetOption({
    flag: 'product',
    group: 'fleet',
    default: 'OS-1-128',
    valueName: 'MODEL',
    help: 'product model of units that name none',
    parse: p.text,
  }),
  firstAddress: fleetOption({
    flag: 'first-address',
    former: 'base-address',
    group: 'fleet',
    default: '127.0.1.1',
    valueName: 'ADDRESS',
    help: 'IP address of the first unit; unit n gets ADDRESS + n',
    parse: p.text,
  }),
  port: fleetOption({
    flag: 'port',
    group: 'fleet',
    default: '80',
    valueName: 'PORT',
    help: 'HTTP port of every unit, like a real unit (80 needs root or `cap_net_bind_service`; tests use a high port)',
    parse: p.wholeNumber(1, 65535),
  }),
  dataRoot: fleetOption({
    flag: 'data-root',
    group: 'fleet',
    default: './fleet-data',
    valueName: 'DIR',
    help: 'unit NAME keeps its data in DIR/NAME',
    parse: p.text,
  }),
  firstSerial: fleetOption({
    flag: 'first-serial',
    former: 'serial-base',
    group: 'fleet',
    valueName: 'DIGITS',
    help: 'serial number of the first unit; unit n gets serial DIGITS + n; without it each unit generates one and keeps it in its data directory',
    parse: p.digits(12),
  }),
  processModel: fleetOption({
    flag: 'process-model',
    group: 'fleet',
    default: 'process',
    valueName: 'process|shared',
    help: 'process: one child process per unit, restarted when it dies; shared: every unit in this process (less memory, no crash isolation)',
    parse: p.oneOf(PROCESS_MODELS),
  }),
  metricsAddress: fleetOption({
    flag: 'metrics-address',
    group: 'fleet',
    default: '127.0.0.1',
    valueName: 'ADDRESS',
    help: "the supervisor's endpoint (GET /metrics, GET /units)",
    parse: p.text,
  }),
  metricsPort: fleetOption({
    flag: 'metrics-port',
    group: 'fleet',
    default: '9464',
    valueName: 'PORT',
    help: 'its port; 0 = any free port (the `fleet ready` log line says which)',
    parse: p.wholeNumber(0, 65535),
  }),
  logLevel: fleetOption({
    flag: 'log-level',
    group: 'fleet',
    default: 'info',
    valueName: 'LEVEL',
    help: `of the supervisor and the units (${LOG_LEVELS.join(', ')}); each unit's JSON log line carries "unit":"NAME"`,
    parse: p.oneOf(LOG_LEVELS),
  }),
  replay: fleetOption({
    flag: 'replay',
    group: 'replay',
    valueName: 'CAPTURE',
    help: 'a capture of several sensors: one unit per --metadata, each the recorded sensor that file describes, all on one timetable (docs/replay.md); not with --count/--file',
    parse: p.optionalText,
  }),
  metadata: fleetOption({
    flag: 'metadata',
    kind: 'list',
    group: 'replay',
    valueName: 'FILE',
    help: 'metadata of one sensor of the --replay capture; repeat per sensor',
    parse: p.list,
  }),
  replayLoop: fleetOption({
    flag: 'replay-loop',
    kind: 'switch',
    group: 'replay',
    help: 'replay the capture again and again (every unit at the same instants)',
    parse: p.switch,
  }),
  replayRate: fleetOption({
    flag: 'replay-rate',
    group: 'replay',
    valueName: 'FACTOR',
    help: 'replay speed (0.01..100; each unit checks it), passed to every unit',
    parse: p.optionalText,
  }),
};

type Parsed = OptionValues<typeof FLEET_OPTIONS>;

/** A capture of several sensors replayed by one unit each, all on one timetable. */
export interface FleetReplay {
  file: string;
  metadata: string[];
  loop: boolean;
  rate: string | undefined;
  /** Unix time (ms) the shared timetable counts from: the supervisor's start. */
  timetableMs: number;
}

/** The fleet's options: the table's values, the replay ones gathered into one `replay` (or none). */
export type FleetOptions = Omit<Parsed, 'replay' | 'metadata' | 'replayLoop' | 'replayRate'> & {
  /** `--replay FILE`: one unit per `--metadata`, each replaying its sensor of the capture. */
  replay: FleetReplay | undefined;
};

export const FLEET_HELP = [
  'Usage: lidar-sensor fleet (--count N | --file FLEET.yaml) [options]',
  '       lidar-sensor fleet --replay CAPTURE --metadata A.json --metadata B.json … [options]',
  '',
  'Starts many simulated sensors, each a complete unit on its own address with its own data directory,',
  'serial and identity, and supervises them.',
  '',
  ...helpLines(FLEET_OPTIONS),
  helpLine('-h, --help', 'this text'),
].join('\n');

/** docs/fleet.md's option table, generated from the table (a test keeps them equal). */
export function fleetOptionsTableMarkdown(): string {
  return markdownTable(FLEET_OPTIONS);
}

export function parseFleetOptions(argv: readonly string[]): FleetOptions | 'help' {
  const read = readOptionTexts(FLEET_OPTIONS, argv, {});
  if (read === 'help') return 'help';
  const {
    replay: file,
    metadata,
    replayLoop,
    replayRate,
    ...options
  } = parseOptionTexts(FLEET_OPTIONS, read.texts, read.names);
  const replay = replayOptions(file, metadata, replayLoop, replayRate);
  if (replay && (options.count !== undefined || options.file !== undefined))
    throw new UsageError('--replay starts one unit per --metadata; it does not combine with --count or --file');
  if (!replay && options.count === undefined && options.file === undefined)
    throw new UsageError('give --count N, --file FLEET.yaml or --replay CAPTURE --metadata FILE …');
  return { ...options, replay };
}

function replayOptions(
  file: string | undefined,
  metadata: string[],
  loop: boolean,
  rate: string | undefined,
): FleetReplay | undefined {
  if (file === undefined) {
    if (metadata.length || loop || rate !== undefined)
      throw new UsageError('--metadata, --replay-loop and --replay-rate need --replay CAPTURE');
    return undefined;
  }
  if (metadata.length === 0)
    throw new UsageError('--replay needs one --metadata FILE per sensor of the capture to replay');
  return { file, metadata, loop, rate, timetableMs: Date.now() };
}
