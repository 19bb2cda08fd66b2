/**
 * Command-line options of the sensor, each also settable as environment variable SENSOR_<NAME>.
 * One table: parsing, `--help` and the README's option list come from it. Flags win over the environment.
 */
import { parseArgs } from 'node:util';
import { HAL_KINDS, type HalKind } from '../hal/index.js';
import { DEFAULT_PRODUCT } from '../model/index.js';
import { DEFAULT_FIRMWARE_MAX_BYTES } from '../core/index.js';
import { parseVersion } from '../core/index.js';
import { parseAddressList, type AddressList } from '../model/index.js';
import { DEFAULT_MAX_BOOT_ATTEMPTS } from '../model/index.js';
import { DEFAULT_HTTP_LIMITS, type HttpLimits } from '../routes/index.js';
import { parseControlAddress, type ControlAddress } from './faults/control-address.js';
import { isLoopbackHost } from '../model/index.js';
import type { MdnsMode } from '../core/discovery/index.js';

const MDNS_MODES: readonly MdnsMode[] = ['auto', 'on', 'off'];

export interface CliOptions {
  host: string;
  port: number;
  dataDir: string;
  product: string;
  serial: string | undefined;
  hal: HalKind;
  logLevel: string;
  /** Largest firmware image an upload may hold, header included. */
  firmwareMaxBytes: number;
  /** Boots a new firmware image gets to become healthy before the unit rolls back. */
  firmwareBootAttempts: number;
  /** linux: the command connecting firmware slots to the bootloader (README "Firmware on a real unit"). */
  firmwareHook: string | undefined;
  /** Folder of trusted Ed25519 public keys (*.pem); with one, only images they signed install (deploy/firmware.md). */
  firmwareTrust: string | undefined;
  /** Anti-rollback: images older than this version (X.Y.Z) are refused; off by default, as on a real unit. */
  firmwareMinVersion: string | undefined;
  /** Only these peers may change the unit; undefined: everyone. */
  allowWritesFrom: AddressList | undefined;
  /** linux: time and network (README "Time and network on a real unit"). */
  networkInterface: string | undefined;
  networkHook: string | undefined;
  chronycHost: string | undefined;
  ptp4lSocket: string | undefined;
  pmcClientSocket: string | undefined;
  ptp4lConfig: string | undefined;
  ptp4lRestartCommand: string[] | undefined;
  /** HTTP limits (src/routes/http/http-limits.ts), in seconds as given. */
  headersTimeout: number;
  requestTimeout: number;
  uploadIdleTimeout: number;
  keepAliveTimeout: number;
  maxConnections: number;
  maxConnectionsPerAddress: number;
  /** Bytes per second. */
  bodyMinRate: number;
  uploadMinRate: number;
  bodyGrace: number;
  /** `--replay`: a recording to replay instead of the synthetic scene (docs/replay.md). */
  replay: string | undefined;
  /** Its metadata; default the `.json` beside the recording. */
  metadata: string | undefined;
  replayRate: number;
  replayLoop: boolean;
  /** Seconds into the recording the replay starts at. */
  replayStartS: number;
  /** Unix time (ms) of a timetable shared with other units replaying the same capture (`fleet --replay`). */
  replayTimetableMs: number | undefined;
  /** Fault injection (docs/faults.md): the control listener, off unless given. */
  control: ControlAddress | undefined;
  controlAllowRemote: boolean;
  /** A scenario file of timed fault rules, run from start. */
  faultsFile: string | undefined;
  /** Reinit, restart and firmware update take as long as on a real unit. */
  realisticTiming: boolean;
  /** mDNS / DNS-SD advertisement: auto = on when listening on a non-loopback address. */
  mdns: MdnsMode;
}

/** The sim HAL listens on loopback unless told otherwise: its firmware upload is unauthenticated. */
export const SIM_DEFAULT_HOST = '127.0.0.1';
/** A real unit answers on its network interface. */
export const LINUX_DEFAULT_HOST = '0.0.0.0';
const seconds = (ms: number) => String(ms / 1000);

export interface OptionSpec {
  flag: string;
  key: keyof CliOptions;
  env: string;
  default: string | undefined;
  valueName: string;
  help: string;
  /** A switch without a value (`--replay-loop`); its environment variable takes 1/true/yes or 0/false/no. */
  boolean?: true;
  /** A switch: `--flag` sets "on", `--no-flag` sets "off" (the environment takes the value words). */
  negatable?: true;
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export const OPTION_SPECS: readonly OptionSpec[] = [
  {
    flag: 'host',
    key: 'host',
    env: 'SENSOR_HOST',
    default: SIM_DEFAULT_HOST,
    valueName: 'ADDRESS',
    help: `listen address (default loopback for --hal sim, ${LINUX_DEFAULT_HOST} for --hal linux; 0.0.0.0 exposes a simulated unit to the network); a specific address (e.g. 127.0.0.2) is also the source address of the UDP data`,
  },
  {
    flag: 'port',
    key: 'port',
    env: 'SENSOR_PORT',
    default: '8080',
    valueName: 'PORT',
    help: 'HTTP port (real units and the Docker image use 80)',
  },
  {
    flag: 'data-dir',
    key: 'dataDir',
    env: 'SENSOR_DATA_DIR',
    default: './data',
    valueName: 'DIR',
    help: 'where the unit keeps its database (configuration, user data, identity, alerts, firmware slots)',
  },
  {
    flag: 'product',
    key: 'product',
    env: 'SENSOR_PRODUCT',
    default: DEFAULT_PRODUCT,
    valueName: 'MODEL',
    help: 'product model, e.g. OS-1-128, OS-2-32, OS-0-64-T1',
  },
  {
    flag: 'serial',
    key: 'serial',
    env: 'SENSOR_SERIAL',
    default: undefined,
    valueName: 'DIGITS',
    help: 'serial number (decimal, < 2^40); default: generated once and kept in the data directory',
  },
  {
    flag: 'hal',
    key: 'hal',
    env: 'SENSOR_HAL',
    default: 'sim',
    valueName: HAL_KINDS.join('|'),
    help: 'hardware layer: sim (simulated unit) or linux (a real unit: iproute2, chrony, ptp4l)',
  },
  {
    flag: 'firmware-max-bytes',
    key: 'firmwareMaxBytes',
    env: 'SENSOR_FIRMWARE_MAX_BYTES',
    default: String(DEFAULT_FIRMWARE_MAX_BYTES),
    valueName: 'BYTES',
    help: 'largest firmware image an upload may hold (413 above it)',
  },
  {
    flag: 'firmware-boot-attempts',
    key: 'firmwareBootAttempts',
    env: 'SENSOR_FIRMWARE_BOOT_ATTEMPTS',
    default: String(DEFAULT_MAX_BOOT_ATTEMPTS),
    valueName: 'N',
    help: 'boots a new firmware image gets to come up healthy before the unit rolls back',
  },
  {
    flag: 'firmware-hook',
    key: 'firmwareHook',
    env: 'SENSOR_FIRMWARE_HOOK',
    default: undefined,
    valueName: 'PATH',
    help: 'linux HAL: executable connecting the A/B firmware slots to the bootloader (U-Boot env, RAUC); without it a linux unit refuses firmware uploads',
  },
  {
    flag: 'firmware-trust',
    key: 'firmwareTrust',
    env: 'SENSOR_FIRMWARE_TRUST',
    default: undefined,
    valueName: 'DIR',
    help: 'folder of trusted Ed25519 public keys (*.pem): with at least one there, firmware uploads must carry a valid signature of one of them (403 otherwise); empty or unset: unsigned images install as before',
  },
  {
    flag: 'firmware-min-version',
    key: 'firmwareMinVersion',
    env: 'SENSOR_FIRMWARE_MIN_VERSION',
    default: undefined,
    valueName: 'X.Y.Z',
    help: 'anti-rollback: refuse firmware images older than this version (403); default off, a real unit allows downgrades',
  },
  {
    flag: 'allow-writes-from',
    key: 'allowWritesFrom',
    env: 'SENSOR_ALLOW_WRITES_FROM',
    default: undefined,
    valueName: 'CIDR[,CIDR...]',
    help: 'only these networks may change the unit (POST/PUT/DELETE, legacy cmd/ setters, firmware upload, restart); others get 403, reads stay open; default: everyone',
  },
  {
    flag: 'interface',
    key: 'networkInterface',
    env: 'SENSOR_INTERFACE',
    default: undefined,
    valueName: 'NAME',
    help: "linux HAL: the Ethernet interface the network resources read and configure; default: the one holding --host, else the default route's",
  },
  {
    flag: 'network-hook',
    key: 'networkHook',
    env: 'SENSOR_NETWORK_HOOK',
    default: undefined,
    valueName: 'PATH',
    help: 'linux HAL: executable run as `PATH static IF CIDR` / `PATH dynamic IF` when the IPv4 override is set / removed (e.g. to stop/start DHCP)',
  },
  {
    flag: 'chronyc-host',
    key: 'chronycHost',
    env: 'SENSOR_CHRONYC_HOST',
    default: undefined,
    valueName: 'HOST|SOCKET',
    help: "linux HAL: chronyc -h argument (chronyd host or command socket path); default chronyc's own",
  },
  {
    flag: 'ptp4l-socket',
    key: 'ptp4lSocket',
    env: 'SENSOR_PTP4L_SOCKET',
    default: undefined,
    valueName: 'PATH',
    help: "linux HAL: ptp4l's management socket (uds_address); default /var/run/ptp4l",
  },
  {
    flag: 'pmc-client-socket',
    key: 'pmcClientSocket',
    env: 'SENSOR_PMC_CLIENT_SOCKET',
    default: undefined,
    valueName: 'PATH',
    help: "linux HAL: pmc's own socket (pmc -i), in a folder the server may write; default pmc's /var/run/pmc.PID",
  },
  {
    flag: 'ptp4l-config',
    key: 'ptp4lConfig',
    env: 'SENSOR_PTP4L_CONFIG',
    default: undefined,
    valueName: 'FILE',
    help: 'linux HAL: ptp4l configuration file that receives the PTP profile (a managed block at its end)',
  },
  {
    flag: 'ptp4l-restart-command',
    key: 'ptp4lRestartCommand',
    env: 'SENSOR_PTP4L_RESTART_COMMAND',
    default: undefined,
    valueName: 'COMMAND',
    help: 'linux HAL: command (split on spaces, no shell) run after a profile change, e.g. "systemctl restart ptp4l"',
  },
  {
    flag: 'headers-timeout',
    key: 'headersTimeout',
    env: 'SENSOR_HEADERS_TIMEOUT',
    default: seconds(DEFAULT_HTTP_LIMITS.headersTimeoutMs),
    valueName: 'SECONDS',
    help: "a request's headers must arrive within this time (408, then the connection is closed)",
  },
  {
    flag: 'request-timeout',
    key: 'requestTimeout',
    env: 'SENSOR_REQUEST_TIMEOUT',
    default: seconds(DEFAULT_HTTP_LIMITS.requestTimeoutMs),
    valueName: 'SECONDS',
    help: 'the body of a request (other than a firmware upload) must arrive within this time after its headers (408, then closed)',
  },
  {
    flag: 'upload-idle-timeout',
    key: 'uploadIdleTimeout',
    env: 'SENSOR_UPLOAD_IDLE_TIMEOUT',
    default: seconds(DEFAULT_HTTP_LIMITS.uploadIdleTimeoutMs),
    valueName: 'SECONDS',
    help: 'a firmware upload that sends no byte for this long is cut: the upload lock is released and the partial image discarded',
  },
  {
    flag: 'keep-alive-timeout',
    key: 'keepAliveTimeout',
    env: 'SENSOR_KEEP_ALIVE_TIMEOUT',
    default: seconds(DEFAULT_HTTP_LIMITS.keepAliveTimeoutMs),
    valueName: 'SECONDS',
    help: 'an idle keep-alive connection is closed after this time',
  },
  {
    flag: 'max-connections',
    key: 'maxConnections',
    env: 'SENSOR_MAX_CONNECTIONS',
    default: String(DEFAULT_HTTP_LIMITS.maxConnections),
    valueName: 'N',
    help: 'open connections served at once; at the cap the oldest idle keep-alive connection is closed to admit a new one, and only when all are busy with requests does a new one get 503 with Retry-After (then closed)',
  },
  {
    flag: 'max-connections-per-address',
    key: 'maxConnectionsPerAddress',
    env: 'SENSOR_MAX_CONNECTIONS_PER_ADDRESS',
    default: String(DEFAULT_HTTP_LIMITS.maxConnectionsPerAddress),
    valueName: 'N',
    help: "connections one client address may hold; over it that address's oldest idle connection is closed, or, all busy, the new one gets 503",
  },
  {
    flag: 'body-min-rate',
    key: 'bodyMinRate',
    env: 'SENSOR_BODY_MIN_RATE',
    default: String(DEFAULT_HTTP_LIMITS.bodyMinRate),
    valueName: 'BYTES/S',
    help: 'after --body-grace, a request body must arrive at this average rate over every window of that length (408, then closed)',
  },
  {
    flag: 'upload-min-rate',
    key: 'uploadMinRate',
    env: 'SENSOR_UPLOAD_MIN_RATE',
    default: String(DEFAULT_HTTP_LIMITS.uploadMinRate),
    valueName: 'BYTES/S',
    help: 'the same for a firmware upload: slower, the connection is cut, the upload lock released and the partial image discarded',
  },
  {
    flag: 'body-grace',
    key: 'bodyGrace',
    env: 'SENSOR_BODY_GRACE',
    default: seconds(DEFAULT_HTTP_LIMITS.bodyGraceMs),
    valueName: 'SECONDS',
    help: 'time a request body gets after the headers before its rate is checked, and the window the rate is averaged over',
  },
  {
    flag: 'replay',
    key: 'replay',
    env: 'SENSOR_REPLAY',
    default: undefined,
    valueName: 'FILE',
    help: 'replay this recording (pcap or pcapng) as the unit it was made on instead of the scene (docs/replay.md)',
  },
  {
    flag: 'metadata',
    key: 'metadata',
    env: 'SENSOR_METADATA',
    default: undefined,
    valueName: 'FILE',
    help: 'metadata JSON of the --replay recording; default the .json beside it',
  },
  {
    flag: 'replay-rate',
    key: 'replayRate',
    env: 'SENSOR_REPLAY_RATE',
    default: '1',
    valueName: 'FACTOR',
    help: 'replay speed: 0.5 half, 2 double speed (0.01..100)',
  },
  {
    flag: 'replay-loop',
    key: 'replayLoop',
    env: 'SENSOR_REPLAY_LOOP',
    default: undefined,
    valueName: '',
    help: 'replay the recording again and again, frame ids and timestamps increasing',
    boolean: true,
  },
  {
    flag: 'replay-start',
    key: 'replayStartS',
    env: 'SENSOR_REPLAY_START',
    default: '0',
    valueName: 'SECONDS',
    help: 'start the replay this far into the recording',
  },
  {
    flag: 'replay-timetable',
    key: 'replayTimetableMs',
    env: 'SENSOR_REPLAY_TIMETABLE',
    default: undefined,
    valueName: 'UNIX_MS',
    help: 'start on a timetable shared by units replaying one capture (lidar-sensor fleet --replay sets it)',
  },
  {
    flag: 'control',
    key: 'control',
    env: 'SENSOR_CONTROL',
    default: undefined,
    valueName: 'HOST:PORT',
    help:
      'fault-injection control listener (docs/faults.md), e.g. 127.0.0.1:8081; ' +
      'loopback only unless --control-allow-remote',
  },
  {
    flag: 'control-allow-remote',
    key: 'controlAllowRemote',
    env: 'SENSOR_CONTROL_ALLOW_REMOTE',
    default: undefined,
    valueName: '',
    boolean: true,
    help: 'let --control bind a non-loopback address (anyone who reaches it can break the unit)',
  },
  {
    flag: 'faults',
    key: 'faultsFile',
    env: 'SENSOR_FAULTS',
    default: undefined,
    valueName: 'FILE',
    help: 'scenario file (YAML or JSON): fault rules on a timeline from start (docs/faults.md)',
  },
  {
    flag: 'realistic-timing',
    key: 'realisticTiming',
    env: 'SENSOR_REALISTIC_TIMING',
    default: undefined,
    valueName: '',
    boolean: true,
    help: 'reinit, restart and firmware update take as long as on a real unit (default: fast, for tests)',
  },
  {
    flag: 'mdns',
    key: 'mdns',
    env: 'SENSOR_MDNS',
    default: 'auto',
    valueName: MDNS_MODES.join('|'),
    negatable: true,
    help: 'mDNS / DNS-SD advertisement (_roger._tcp, _ouster-lidar._tcp): `--mdns` on, `--no-mdns` off; auto: on when --host is not a loopback address',
  },
  {
    flag: 'log-level',
    key: 'logLevel',
    env: 'SENSOR_LOG_LEVEL',
    default: 'info',
    valueName: 'LEVEL',
    help: `log level: ${LOG_LEVELS.join(', ')}`,
  },
];

export class UsageError extends Error {}

/** What a switch's environment variable may say (an empty value is off). */
const SWITCH_TRUE = ['1', 'true', 'yes'];
const SWITCH_FALSE = ['0', 'false', 'no', ''];

export function helpText(program = 'lidar-sensor'): string {
  const lines = [
    `Usage: ${program} [options]`,
    '',
    'Starts a lidar sensor management server (a simulated sensor by default).',
    '',
    'Options:',
  ];
  for (const o of OPTION_SPECS) {
    const left = o.negatable
      ? `  --${o.flag}, --no-${o.flag}`
      : o.boolean
        ? `  --${o.flag}`
        : `  --${o.flag} ${o.valueName}`;
    const dflt = o.default !== undefined ? ` (default ${o.default})` : '';
    lines.push(`${left.padEnd(30)} ${o.help}${dflt}; env ${o.env}`);
  }
  lines.push(`${'  -h, --help'.padEnd(30)} show this help`);
  lines.push(`${'  --version'.padEnd(30)} print the version and exit`);
  lines.push('', 'Commands:');
  lines.push(`  ${program} faults --help           the fault-injection client (add, list, remove, clear rules)`);
  lines.push(`  ${program} fleet --help            many simulated units from one command (docs/fleet.md)`);
  lines.push(
    `  ${program} recording info FILE   what a recording holds (sensor, profile, mode, packets, frames, gaps)`,
  );
  return lines.join('\n');
}

/** Parses argv and the environment; throws UsageError with a clear message on bad input. */
export function parseCliOptions(argv: readonly string[], env: NodeJS.ProcessEnv): CliOptions | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: {
        help: { type: 'boolean', short: 'h' },
        ...Object.fromEntries(
          OPTION_SPECS.map((o) => [
            o.flag,
            { type: o.boolean || o.negatable ? ('boolean' as const) : ('string' as const) },
          ]),
        ),
        ...Object.fromEntries(
          OPTION_SPECS.filter((o) => o.negatable).map((o) => [`no-${o.flag}`, { type: 'boolean' as const }]),
        ),
      },
      strict: true,
      allowPositionals: false,
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (parsed.values.help) return 'help';
  const raw: Record<string, string | undefined> = {};
  for (const o of OPTION_SPECS) {
    const values = parsed.values as Record<string, string | boolean | undefined>;
    const flag = values[o.flag];
    // A negatable switch gives its value words (on/off); a plain switch true/false; an option its text.
    const switched = o.negatable ? (values[`no-${o.flag}`] ? 'off' : flag ? 'on' : undefined) : undefined;
    const value = switched ?? (typeof flag === 'boolean' ? String(flag) : flag) ?? env[o.env] ?? o.default;
    raw[o.key] = value;
  }
  const hostGiven = (parsed.values as Record<string, string | undefined>).host ?? env.SENSOR_HOST;
  if (hostGiven === undefined && raw.hal === 'linux') raw.host = LINUX_DEFAULT_HOST;
  const port = Number(raw.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`--port must be an integer 0..65535; got ${JSON.stringify(raw.port)}`);
  if (!(HAL_KINDS as readonly string[]).includes(raw.hal ?? ''))
    throw new UsageError(`--hal must be one of ${HAL_KINDS.join(', ')}; got ${JSON.stringify(raw.hal)}`);
  if (!(LOG_LEVELS as readonly string[]).includes(raw.logLevel ?? ''))
    throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}; got ${JSON.stringify(raw.logLevel)}`);
  if (!(MDNS_MODES as readonly string[]).includes(raw.mdns ?? ''))
    throw new UsageError(`SENSOR_MDNS must be one of ${MDNS_MODES.join(', ')}; got ${JSON.stringify(raw.mdns)}`);
  if (!raw.host) throw new UsageError('--host must not be empty');
  if (!raw.dataDir) throw new UsageError('--data-dir must not be empty');
  const firmwareMaxBytes = Number(raw.firmwareMaxBytes);
  if (!Number.isSafeInteger(firmwareMaxBytes) || firmwareMaxBytes < 1)
    throw new UsageError(
      `--firmware-max-bytes must be a positive integer; got ${JSON.stringify(raw.firmwareMaxBytes)}`,
    );
  const firmwareBootAttempts = Number(raw.firmwareBootAttempts);
  if (!Number.isInteger(firmwareBootAttempts) || firmwareBootAttempts < 1 || firmwareBootAttempts > 100)
    throw new UsageError(
      `--firmware-boot-attempts must be an integer 1..100; got ${JSON.stringify(raw.firmwareBootAttempts)}`,
    );
  if (raw.firmwareMinVersion && !parseVersion(raw.firmwareMinVersion))
    throw new UsageError(`--firmware-min-version must be X.Y.Z; got ${JSON.stringify(raw.firmwareMinVersion)}`);
  let allowWritesFrom: AddressList | undefined;
  try {
    allowWritesFrom = raw.allowWritesFrom ? parseAddressList(raw.allowWritesFrom) : undefined;
  } catch (error) {
    throw new UsageError(`--allow-writes-from: ${(error as Error).message}`);
  }
  const positiveSeconds = (key: keyof CliOptions, flag: string): number => {
    const value = Number(raw[key]);
    if (!Number.isFinite(value) || value <= 0 || value > 86_400)
      throw new UsageError(
        `--${flag} must be a number of seconds > 0 (at most 86400); got ${JSON.stringify(raw[key])}`,
      );
    return value;
  };
  const maxConnections = Number(raw.maxConnections);
  if (!Number.isInteger(maxConnections) || maxConnections < 1 || maxConnections > 100_000)
    throw new UsageError(`--max-connections must be an integer 1..100000; got ${JSON.stringify(raw.maxConnections)}`);
  const maxConnectionsPerAddress = Number(raw.maxConnectionsPerAddress);
  if (!Number.isInteger(maxConnectionsPerAddress) || maxConnectionsPerAddress < 1 || maxConnectionsPerAddress > 100_000)
    throw new UsageError(
      `--max-connections-per-address must be an integer 1..100000; got ${JSON.stringify(raw.maxConnectionsPerAddress)}`,
    );
  const bytesPerSecond = (key: keyof CliOptions, flag: string): number => {
    const value = Number(raw[key]);
    if (!Number.isFinite(value) || value < 0 || value > 1e9)
      throw new UsageError(
        `--${flag} must be a number of bytes per second 0..1e9 (0: no minimum); got ${JSON.stringify(raw[key])}`,
      );
    return value;
  };
  const replayRate = Number(raw.replayRate);
  if (!Number.isFinite(replayRate) || replayRate < 0.01 || replayRate > 100) {
    throw new UsageError(`--replay-rate must be a number 0.01..100; got ${JSON.stringify(raw.replayRate)}`);
  }
  const replayStartS = Number(raw.replayStartS);
  if (!Number.isFinite(replayStartS) || replayStartS < 0) {
    throw new UsageError(`--replay-start must be a number of seconds >= 0; got ${JSON.stringify(raw.replayStartS)}`);
  }
  if (!raw.replay && raw.metadata) throw new UsageError('--metadata needs --replay FILE');
  const replayTimetableMs = raw.replayTimetableMs === undefined ? undefined : Number(raw.replayTimetableMs);
  if (replayTimetableMs !== undefined && !(Number.isInteger(replayTimetableMs) && replayTimetableMs > 0)) {
    throw new UsageError(
      `--replay-timetable must be a Unix time in milliseconds; got ${JSON.stringify(raw.replayTimetableMs)}`,
    );
  }
  const switchOn = (key: keyof CliOptions): boolean => {
    const text = (raw[key] ?? 'false').toLowerCase();
    if (SWITCH_TRUE.includes(text)) return true;
    if (SWITCH_FALSE.includes(text)) return false;
    const spec = OPTION_SPECS.find((o) => o.key === key);
    throw new UsageError(`${spec?.env ?? key} must be 1/true/yes or 0/false/no; got ${JSON.stringify(raw[key])}`);
  };
  const controlAllowRemote = switchOn('controlAllowRemote');
  const control = controlOption(raw.control, controlAllowRemote, raw.host ?? '', port);
  return {
    headersTimeout: positiveSeconds('headersTimeout', 'headers-timeout'),
    requestTimeout: positiveSeconds('requestTimeout', 'request-timeout'),
    uploadIdleTimeout: positiveSeconds('uploadIdleTimeout', 'upload-idle-timeout'),
    keepAliveTimeout: positiveSeconds('keepAliveTimeout', 'keep-alive-timeout'),
    maxConnections,
    maxConnectionsPerAddress,
    bodyMinRate: bytesPerSecond('bodyMinRate', 'body-min-rate'),
    uploadMinRate: bytesPerSecond('uploadMinRate', 'upload-min-rate'),
    bodyGrace: positiveSeconds('bodyGrace', 'body-grace'),
    host: raw.host,
    port,
    dataDir: raw.dataDir,
    product: raw.product ?? DEFAULT_PRODUCT,
    serial: raw.serial || undefined,
    hal: raw.hal as HalKind,
    logLevel: raw.logLevel ?? 'info',
    firmwareMaxBytes,
    firmwareBootAttempts,
    firmwareHook: raw.firmwareHook || undefined,
    firmwareTrust: raw.firmwareTrust || undefined,
    firmwareMinVersion: raw.firmwareMinVersion || undefined,
    allowWritesFrom,
    networkInterface: raw.networkInterface || undefined,
    networkHook: raw.networkHook || undefined,
    chronycHost: raw.chronycHost || undefined,
    ptp4lSocket: raw.ptp4lSocket || undefined,
    pmcClientSocket: raw.pmcClientSocket || undefined,
    ptp4lConfig: raw.ptp4lConfig || undefined,
    ptp4lRestartCommand: raw.ptp4lRestartCommand?.trim() ? raw.ptp4lRestartCommand.trim().split(/\s+/) : undefined,
    replay: raw.replay || undefined,
    metadata: raw.metadata || undefined,
    replayRate,
    replayLoop: switchOn('replayLoop'),
    replayStartS,
    replayTimetableMs,
    control,
    controlAllowRemote,
    faultsFile: raw.faultsFile || undefined,
    realisticTiming: switchOn('realisticTiming'),
    mdns: raw.mdns as MdnsMode,
  };
}

/** The HTTP limits the options ask for, in the units src/http uses. */
export function httpLimitsOf(options: CliOptions): HttpLimits {
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
  };
}

/** The control listener: loopback unless allowed, and never the sensor API's port. */
function controlOption(
  text: string | undefined,
  allowRemote: boolean,
  apiHost: string,
  apiPort: number,
): ControlAddress | undefined {
  if (!text) return undefined;
  const address = parseControlAddress(text);
  if (typeof address === 'string') throw new UsageError(`--control ${address}`);
  if (!allowRemote && !isLoopbackHost(address.host)) {
    throw new UsageError(
      `--control ${address.host} is not a loopback address: anyone reaching it could break the unit; ` +
        'add --control-allow-remote to bind it anyway',
    );
  }
  if (address.port !== 0 && address.port === apiPort) {
    throw new UsageError(
      `--control must not use the sensor API's port ${apiPort} (${apiHost}): ` +
        'clients of the sensor API must not reach the control plane',
    );
  }
  return address;
}

/** The README's option table, generated from OPTION_SPECS (a test keeps them equal). */
export function optionsTableMarkdown(): string {
  const escapePipes = (text: string) => text.replace(/\|/g, '\\|');
  return [
    '| Option | Environment | Default | Meaning |',
    '|---|---|---|---|',
    ...OPTION_SPECS.map(
      (o) =>
        `| \`${o.negatable ? `--${o.flag}\` / \`--no-${o.flag}` : o.boolean ? `--${o.flag}` : `--${o.flag} ${escapePipes(o.valueName)}`}\` | ` +
        `\`${o.env}\` | ${o.default !== undefined ? `\`${o.default}\`` : '—'} | ${escapePipes(o.help)} |`,
    ),
  ].join('\n');
}
