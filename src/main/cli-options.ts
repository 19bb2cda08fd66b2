/**
 * Command-line options of the sensor, each also settable as environment variable SENSOR_<NAME> (flags win).
 * This table is the one statement of them: the `CliOptions` type, parsing, validation and its error wording,
 * `--help` and the README's option table all come from it (option-kit.ts). Each option's group names the
 * consumers that read it; a consumer takes its slice (`OptionsOf<'http'>`), not the whole set.
 */
import { HAL_KINDS } from '../hal/index.js';
import {
  DEFAULT_PRODUCT,
  DEFAULT_MAX_BOOT_ATTEMPTS,
  FIRMWARE_LINES,
  type FirmwareLine,
  isLoopbackHost,
  parseAddressList,
  parseGnssPosition,
} from '../model/index.js';
import { DEFAULT_FIRMWARE_MAX_BYTES, parseVersion } from '../core/index.js';
import { DEFAULT_HTTP_LIMITS, type HttpLimits } from '../routes/index.js';
import type { MdnsMode } from '../core/discovery/index.js';
import { parseControlAddress } from './control-address.js';
import {
  type GroupValues,
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

export { LOG_LEVELS, UsageError };

/** The sim HAL listens on loopback unless told otherwise: its firmware upload is unauthenticated. */
export const SIM_DEFAULT_HOST = '127.0.0.1';
/** A real unit answers on its network interface. */
export const LINUX_DEFAULT_HOST = '0.0.0.0';
const MDNS_MODES: readonly MdnsMode[] = ['auto', 'on', 'off'];

const seconds = (ms: number) => String(ms / 1000);
/** A duration in seconds as the HTTP limits take them. */
const positiveSeconds = p.number((s) => s > 0 && s <= 86_400, 'a number of seconds > 0 (at most 86400)');
const bytesPerSecond = p.number((r) => r >= 0 && r <= 1e9, 'a number of bytes per second 0..1e9 (0: no minimum)');
const connections = p.integer(1, 100_000);

/**
 * Groups, by who reads them: `listen` the server and the container health check; `unit` the composition
 * root; `linux` the linux HAL; `firmware` the firmware policy; `http` the HTTP limits; `replay` the replay
 * setup; `faults` the fault plane; `log` the CLI's logger.
 */
export const CLI_OPTIONS = {
  host: option({
    flag: 'host',
    group: 'listen',
    default: SIM_DEFAULT_HOST,
    valueName: 'ADDRESS',
    help: `listen address (default loopback for --hal sim, ${LINUX_DEFAULT_HOST} for --hal linux; 0.0.0.0 exposes a simulated unit to the network); a specific address (e.g. 127.0.0.2) is also the source address of the UDP data`,
    parse: p.nonEmpty,
  }),
  port: option({
    flag: 'port',
    group: 'listen',
    default: '8080',
    valueName: 'PORT',
    help: 'HTTP port (real units and the Docker image use 80)',
    parse: p.integer(0, 65535),
  }),
  dataDir: option({
    flag: 'data-dir',
    group: 'unit',
    default: './data',
    valueName: 'DIR',
    help: 'where the unit keeps its database (configuration, user data, identity, alerts, firmware slots)',
    parse: p.nonEmpty,
  }),
  product: option({
    flag: 'product',
    group: 'unit',
    default: DEFAULT_PRODUCT,
    valueName: 'MODEL',
    help: 'product model, e.g. OS-1-128, OS-2-32, OS-0-64-T1',
    // Checked against the product models when the unit starts (an unknown one lists the valid ones).
    parse: (text) => text ?? DEFAULT_PRODUCT,
  }),
  firmwareVersion: option({
    flag: 'firmware-version',
    group: 'unit',
    default: '3.1',
    valueName: Object.keys(FIRMWARE_LINES).join('|'),
    help: 'firmware line the unit runs and reports (image_rev, fw, mDNS, metadata); 3.2 adds Zone Monitor (docs/zone-monitor.md)',
    parse: p.oneOf(Object.keys(FIRMWARE_LINES) as FirmwareLine[]),
  }),
  gnss: option({
    flag: 'gnss',
    group: 'unit',
    valueName: 'LAT,LON[,SPEED,COURSE]',
    help: 'where the GNSS receiver on the NMEA input stands (degrees; m/s and degrees from north when it moves); its sentences reach ACCEL32_GYRO32_NMEA IMU packets with multipurpose_io_mode INPUT_NMEA_UART; default 37.7749,-122.4194',
    parse: p.optional(parseGnssPosition),
  }),
  serial: option({
    flag: 'serial',
    group: 'unit',
    valueName: 'DIGITS',
    help: 'serial number (decimal, < 2^40); default: generated once and kept in the data directory',
    parse: p.optionalText,
  }),
  hal: option({
    flag: 'hal',
    group: 'unit',
    default: 'sim',
    valueName: HAL_KINDS.join('|'),
    help: 'hardware layer: sim (simulated unit) or linux (a real unit: iproute2, chrony, ptp4l)',
    parse: p.oneOf(HAL_KINDS),
  }),
  firmwareMaxBytes: option({
    flag: 'firmware-max-bytes',
    group: 'unit',
    default: String(DEFAULT_FIRMWARE_MAX_BYTES),
    valueName: 'BYTES',
    help: 'largest firmware image an upload may hold (413 above it)',
    parse: p.number((n) => Number.isSafeInteger(n) && n >= 1, 'a positive integer'),
  }),
  alertCursorStart: option({
    flag: 'alert-cursor-start',
    group: 'unit',
    default: '0',
    valueName: 'CURSOR',
    help: "the cursor a new unit's alert log starts at (0..4294967295): near the top to see the 2^32 wrap with real alerts; a log that already holds a cursor keeps it",
    parse: p.wholeNumber(0, 2 ** 32 - 1),
  }),
  firmwareBootAttempts: option({
    flag: 'firmware-boot-attempts',
    group: 'unit',
    default: String(DEFAULT_MAX_BOOT_ATTEMPTS),
    valueName: 'N',
    help: 'boots a new firmware image gets to come up healthy before the unit rolls back',
    parse: p.integer(1, 100),
  }),
  firmwareHook: option({
    flag: 'firmware-hook',
    group: 'linux',
    valueName: 'PATH',
    help: 'linux HAL: executable connecting the A/B firmware slots to the bootloader (U-Boot env, RAUC); without it a linux unit refuses firmware uploads',
    parse: p.optionalText,
  }),
  firmwareTrust: option({
    flag: 'firmware-trust',
    group: 'firmware',
    valueName: 'DIR',
    help: 'folder of trusted Ed25519 public keys (*.pem): with at least one there, firmware uploads must carry a valid signature of one of them (403 otherwise); empty or unset: unsigned images install as before',
    parse: p.optionalText,
  }),
  firmwareMinVersion: option({
    flag: 'firmware-min-version',
    group: 'firmware',
    valueName: 'X.Y.Z',
    help: 'anti-rollback: refuse firmware images older than this version (403); default off, a real unit allows downgrades',
    parse: p.optional((text) => {
      if (!parseVersion(text))
        throw new UsageError(`--firmware-min-version must be X.Y.Z; got ${JSON.stringify(text)}`);
      return text;
    }),
  }),
  allowWritesFrom: option({
    flag: 'allow-writes-from',
    group: 'unit',
    valueName: 'CIDR[,CIDR...]',
    help: 'only these networks may change the unit (POST/PUT/DELETE, legacy cmd/ setters, firmware upload, restart); others get 403, reads stay open; default: everyone',
    parse: p.optional(parseAddressList),
  }),
  networkInterface: option({
    flag: 'interface',
    group: 'linux',
    valueName: 'NAME',
    help: "linux HAL: the Ethernet interface the network resources read and configure; default: the one holding --host, else the default route's",
    parse: p.optionalText,
  }),
  networkHook: option({
    flag: 'network-hook',
    group: 'linux',
    valueName: 'PATH',
    help: 'linux HAL: executable run as `PATH static IF CIDR` / `PATH dynamic IF` when the IPv4 override is set / removed (e.g. to stop/start DHCP)',
    parse: p.optionalText,
  }),
  chronycHost: option({
    flag: 'chronyc-host',
    group: 'linux',
    valueName: 'HOST|SOCKET',
    help: "linux HAL: chronyc -h argument (chronyd host or command socket path); default chronyc's own",
    parse: p.optionalText,
  }),
  ptp4lSocket: option({
    flag: 'ptp4l-socket',
    group: 'linux',
    valueName: 'PATH',
    help: "linux HAL: ptp4l's management socket (uds_address); default /var/run/ptp4l",
    parse: p.optionalText,
  }),
  pmcClientSocket: option({
    flag: 'pmc-client-socket',
    group: 'linux',
    valueName: 'PATH',
    help: "linux HAL: pmc's own socket (pmc -i), in a folder the server may write; default pmc's /var/run/pmc.PID",
    parse: p.optionalText,
  }),
  ptp4lConfig: option({
    flag: 'ptp4l-config',
    group: 'linux',
    valueName: 'FILE',
    help: 'linux HAL: ptp4l configuration file that receives the PTP profile (a managed block at its end)',
    parse: p.optionalText,
  }),
  ptp4lRestartCommand: option({
    flag: 'ptp4l-restart-command',
    group: 'linux',
    valueName: 'COMMAND',
    help: 'linux HAL: command (split on spaces, no shell) run after a profile change, e.g. "systemctl restart ptp4l"',
    parse: (text) => (text?.trim() ? text.trim().split(/\s+/) : undefined),
  }),
  headersTimeout: option({
    flag: 'headers-timeout',
    group: 'http',
    default: seconds(DEFAULT_HTTP_LIMITS.headersTimeoutMs),
    valueName: 'SECONDS',
    help: "a request's headers must arrive within this time (408, then the connection is closed)",
    parse: positiveSeconds,
  }),
  requestTimeout: option({
    flag: 'request-timeout',
    group: 'http',
    default: seconds(DEFAULT_HTTP_LIMITS.requestTimeoutMs),
    valueName: 'SECONDS',
    help: 'the body of a request (other than a firmware upload) must arrive within this time after its headers (408, then closed)',
    parse: positiveSeconds,
  }),
  uploadIdleTimeout: option({
    flag: 'upload-idle-timeout',
    group: 'http',
    default: seconds(DEFAULT_HTTP_LIMITS.uploadIdleTimeoutMs),
    valueName: 'SECONDS',
    help: 'a firmware upload that sends no byte for this long is cut: the upload lock is released and the partial image discarded',
    parse: positiveSeconds,
  }),
  keepAliveTimeout: option({
    flag: 'keep-alive-timeout',
    group: 'http',
    default: seconds(DEFAULT_HTTP_LIMITS.keepAliveTimeoutMs),
    valueName: 'SECONDS',
    help: 'an idle keep-alive connection is closed after this time',
    parse: positiveSeconds,
  }),
  maxConnections: option({
    flag: 'max-connections',
    group: 'http',
    default: String(DEFAULT_HTTP_LIMITS.maxConnections),
    valueName: 'N',
    help: 'open connections served at once; at the cap the oldest idle keep-alive connection is closed to admit a new one, and only when all are busy with requests does a new one get 503 with Retry-After (then closed)',
    parse: connections,
  }),
  maxConnectionsPerAddress: option({
    flag: 'max-connections-per-address',
    group: 'http',
    default: String(DEFAULT_HTTP_LIMITS.maxConnectionsPerAddress),
    valueName: 'N',
    help: "connections one client address may hold; over it that address's oldest idle connection is closed, or, all busy, the new one gets 503",
    parse: connections,
  }),
  bodyMinRate: option({
    flag: 'body-min-rate',
    group: 'http',
    default: String(DEFAULT_HTTP_LIMITS.bodyMinRate),
    valueName: 'BYTES/S',
    help: 'after --body-grace, a request body must arrive at this average rate over every window of that length (408, then closed)',
    parse: bytesPerSecond,
  }),
  uploadMinRate: option({
    flag: 'upload-min-rate',
    group: 'http',
    default: String(DEFAULT_HTTP_LIMITS.uploadMinRate),
    valueName: 'BYTES/S',
    help: 'the same for a firmware upload: slower, the connection is cut, the upload lock released and the partial image discarded',
    parse: bytesPerSecond,
  }),
  bodyGrace: option({
    flag: 'body-grace',
    group: 'http',
    default: seconds(DEFAULT_HTTP_LIMITS.bodyGraceMs),
    valueName: 'SECONDS',
    help: 'time a request body gets after the headers before its rate is checked, and the window the rate is averaged over',
    parse: positiveSeconds,
  }),
  stallTimeout: option({
    flag: 'stall-timeout',
    group: 'http',
    default: seconds(DEFAULT_HTTP_LIMITS.stallTimeoutMs),
    valueName: 'SECONDS',
    help: 'a client that takes none of the bytes of its answer for this long (a live view on a sleeping laptop, a download nobody reads) is cut off',
    parse: positiveSeconds,
  }),
  replay: option({
    flag: 'replay',
    group: 'replay',
    valueName: 'FILE',
    help: 'replay this recording (pcap or pcapng) as the unit it was made on instead of the scene (docs/replay.md)',
    parse: p.optionalText,
  }),
  metadata: option({
    flag: 'metadata',
    group: 'replay',
    valueName: 'FILE',
    help: 'metadata JSON of the --replay recording; default the .json beside it',
    parse: p.optionalText,
  }),
  replayRate: option({
    flag: 'replay-rate',
    group: 'replay',
    default: '1',
    valueName: 'FACTOR',
    help: 'replay speed: 0.5 half, 2 double speed (0.01..100)',
    parse: p.number((r) => r >= 0.01 && r <= 100, 'a number 0.01..100'),
  }),
  replayLoop: option({
    flag: 'replay-loop',
    group: 'replay',
    kind: 'switch',
    help: 'replay the recording again and again, frame ids and timestamps increasing',
    parse: p.switch,
  }),
  replayStartS: option({
    flag: 'replay-start',
    group: 'replay',
    default: '0',
    valueName: 'SECONDS',
    help: 'start the replay this far into the recording',
    parse: p.number((s) => s >= 0, 'a number of seconds >= 0'),
  }),
  replayTimetableMs: option({
    flag: 'replay-timetable',
    group: 'replay',
    valueName: 'UNIX_MS',
    help: 'start on a timetable shared by units replaying one capture (lidar-sensor fleet --replay sets it)',
    // Unix time in ms of the shared start; an empty value is an error, not "unset" (fleet always sets one).
    parse: (text, name) =>
      text === undefined
        ? undefined
        : p.number((ms) => Number.isInteger(ms) && ms > 0, 'a Unix time in milliseconds')(text, name),
  }),
  control: option({
    flag: 'control',
    group: 'faults',
    valueName: 'HOST:PORT',
    help: 'fault-injection control listener (docs/faults.md), e.g. 127.0.0.1:8081; loopback only unless --control-allow-remote',
    parse: p.optional((text) => {
      const address = parseControlAddress(text);
      if (typeof address === 'string') throw new UsageError(`--control ${address}`);
      return address;
    }),
  }),
  controlAllowRemote: option({
    flag: 'control-allow-remote',
    group: 'faults',
    kind: 'switch',
    help: 'let --control bind a non-loopback address (anyone who reaches it can break the unit)',
    parse: p.switch,
  }),
  faultsFile: option({
    flag: 'faults',
    group: 'faults',
    valueName: 'FILE',
    help: 'scenario file (YAML or JSON): fault rules on a timeline from start (docs/faults.md)',
    parse: p.optionalText,
  }),
  realisticTiming: option({
    flag: 'realistic-timing',
    group: 'faults',
    kind: 'switch',
    help: 'reinit, restart and firmware update take as long as on a real unit (default: fast, for tests)',
    parse: p.switch,
  }),
  mdns: option({
    flag: 'mdns',
    group: 'listen',
    kind: 'negatable',
    default: 'auto',
    valueName: MDNS_MODES.join('|'),
    help: 'mDNS / DNS-SD advertisement (_roger._tcp, _ouster-lidar._tcp): `--mdns` on, `--no-mdns` off; auto: on when --host is not a loopback address',
    parse: p.oneOf(MDNS_MODES),
  }),
  logLevel: option({
    flag: 'log-level',
    group: 'log',
    default: 'info',
    valueName: 'LEVEL',
    help: `log level: ${LOG_LEVELS.join(', ')}`,
    parse: p.oneOf(LOG_LEVELS),
  }),
};

type Table = typeof CLI_OPTIONS;
export type OptionGroup = Table[keyof Table]['group'];
/** Every option, parsed: what the CLI hands on. */
export type CliOptions = OptionValues<Table>;
/** The options of the named groups only: what one consumer takes. */
export type OptionsOf<G extends OptionGroup> = GroupValues<Table, G>;

/** Parses argv and the environment; throws UsageError with a clear message on bad input. */
export function parseCliOptions(argv: readonly string[], env: NodeJS.ProcessEnv): CliOptions | 'help' {
  const read = readOptionTexts(CLI_OPTIONS, argv, env);
  if (read === 'help') return 'help';
  // A real unit answers on its network interface unless told otherwise.
  if (!read.given.has('host') && read.texts.hal === 'linux') read.texts.host = LINUX_DEFAULT_HOST;
  const options = parseOptionTexts(CLI_OPTIONS, read.texts, read.names);
  checkTogether(options);
  return options;
}

/** What only holds between options. */
function checkTogether(options: CliOptions): void {
  if (!options.replay && options.metadata) throw new UsageError('--metadata needs --replay FILE');
  const { control } = options;
  if (!control) return;
  // The control listener: loopback unless allowed, and never the sensor API's port.
  if (!options.controlAllowRemote && !isLoopbackHost(control.host)) {
    throw new UsageError(
      `--control ${control.host} is not a loopback address: anyone reaching it could break the unit; ` +
        'add --control-allow-remote to bind it anyway',
    );
  }
  if (control.port !== 0 && control.port === options.port) {
    throw new UsageError(
      `--control must not use the sensor API's port ${options.port} (${options.host}): ` +
        'clients of the sensor API must not reach the control plane',
    );
  }
}

/** The HTTP limits the options ask for, in the units src/routes/http uses. */
export function httpLimitsOf(options: OptionsOf<'http'>): HttpLimits {
  return {
    headersTimeoutMs: Math.round(options.headersTimeout * 1000),
    requestTimeoutMs: Math.round(options.requestTimeout * 1000),
    uploadIdleTimeoutMs: Math.round(options.uploadIdleTimeout * 1000),
    keepAliveTimeoutMs: Math.round(options.keepAliveTimeout * 1000),
    maxConnections: options.maxConnections,
    maxConnectionsPerAddress: options.maxConnectionsPerAddress,
    bodyMinRate: options.bodyMinRate,
    uploadMinRate: options.uploadMinRate,
    bodyGraceMs: Math.round(options.bodyGrace * 1000),
    stallTimeoutMs: Math.round(options.stallTimeout * 1000),
  };
}

/** The subcommands `--help` lists (src/main/cli-command.ts runs them). */
const COMMANDS: readonly (readonly [string, string])[] = [
  ['faults --help', 'the fault-injection client (add, list, remove, clear rules)'],
  ['fleet --help', 'many simulated units from one command (docs/fleet.md)'],
  ['recording info FILE', 'what a recording holds (sensor, profile, mode, packets, frames, gaps)'],
  ['validate URL', 'checks a unit, real or simulated, against the interface (docs/validate.md)'],
];

export function helpText(program = 'lidar-sensor'): string {
  return [
    `Usage: ${program} [options]`,
    '',
    'Starts a lidar sensor management server (a simulated sensor by default).',
    '',
    'Options:',
    ...helpLines(CLI_OPTIONS),
    helpLine('-h, --help', 'show this help'),
    helpLine('--version', 'print the version and exit'),
    '',
    'Commands:',
    ...COMMANDS.map(([command, what]) => `  ${`${program} ${command}`.padEnd(35)}${what}`),
  ].join('\n');
}

/** The README's option table, generated from the table (a test keeps them equal). */
export function optionsTableMarkdown(): string {
  return markdownTable(CLI_OPTIONS);
}
