/**
 * Command-line options of the sensor, each also settable as environment variable SENSOR_<NAME>.
 * One table: parsing, `--help` and the README's option list come from it. Flags win over the environment.
 */
import { parseArgs } from 'node:util';
import { HAL_KINDS, type HalKind } from './hal/types.js';
import { DEFAULT_PRODUCT } from './sensor/products.js';
import { DEFAULT_FIRMWARE_MAX_BYTES } from './firmware/firmware-manager.js';
import { DEFAULT_MAX_BOOT_ATTEMPTS } from './firmware/slot-state.js';
import type { MdnsMode } from './discovery/mdns-advertiser.js';

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
  /** linux: time and network (README "Time and network on a real unit"). */
  networkInterface: string | undefined;
  networkHook: string | undefined;
  chronycHost: string | undefined;
  ptp4lSocket: string | undefined;
  ptp4lConfig: string | undefined;
  ptp4lRestartCommand: string[] | undefined;
  /** mDNS / DNS-SD advertisement: auto = on when listening on a non-loopback address. */
  mdns: MdnsMode;
}

export interface OptionSpec {
  flag: string;
  key: keyof CliOptions;
  env: string;
  default: string | undefined;
  valueName: string;
  help: string;
  /** A switch: `--flag` sets "on", `--no-flag` sets "off" (the environment takes the value words). */
  negatable?: true;
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export const OPTION_SPECS: readonly OptionSpec[] = [
  { flag: 'host', key: 'host', env: 'SENSOR_HOST', default: '0.0.0.0', valueName: 'ADDRESS', help: 'listen address; a specific address (e.g. 127.0.0.2) is also the source address of the UDP data' },
  { flag: 'port', key: 'port', env: 'SENSOR_PORT', default: '8080', valueName: 'PORT', help: 'HTTP port (real units and the Docker image use 80)' },
  { flag: 'data-dir', key: 'dataDir', env: 'SENSOR_DATA_DIR', default: './data', valueName: 'DIR', help: 'where the unit keeps its database (configuration, user data, identity, alerts, firmware slots)' },
  { flag: 'product', key: 'product', env: 'SENSOR_PRODUCT', default: DEFAULT_PRODUCT, valueName: 'MODEL', help: 'product model, e.g. OS-1-128, OS-2-32, OS-0-64-T1' },
  { flag: 'serial', key: 'serial', env: 'SENSOR_SERIAL', default: undefined, valueName: 'DIGITS', help: 'serial number (decimal, < 2^40); default: generated once and kept in the data directory' },
  { flag: 'hal', key: 'hal', env: 'SENSOR_HAL', default: 'sim', valueName: HAL_KINDS.join('|'), help: 'hardware layer: sim (simulated unit) or linux (a real unit: iproute2, chrony, ptp4l)' },
  { flag: 'firmware-max-bytes', key: 'firmwareMaxBytes', env: 'SENSOR_FIRMWARE_MAX_BYTES', default: String(DEFAULT_FIRMWARE_MAX_BYTES), valueName: 'BYTES', help: 'largest firmware image an upload may hold (413 above it)' },
  { flag: 'firmware-boot-attempts', key: 'firmwareBootAttempts', env: 'SENSOR_FIRMWARE_BOOT_ATTEMPTS', default: String(DEFAULT_MAX_BOOT_ATTEMPTS), valueName: 'N', help: 'boots a new firmware image gets to come up healthy before the unit rolls back' },
  { flag: 'firmware-hook', key: 'firmwareHook', env: 'SENSOR_FIRMWARE_HOOK', default: undefined, valueName: 'PATH', help: 'linux HAL: executable connecting the A/B firmware slots to the bootloader (U-Boot env, RAUC); without it a linux unit refuses firmware uploads' },
  { flag: 'interface', key: 'networkInterface', env: 'SENSOR_INTERFACE', default: undefined, valueName: 'NAME', help: 'linux HAL: the Ethernet interface the network resources read and configure; default: the one holding --host, else the default route\'s' },
  { flag: 'network-hook', key: 'networkHook', env: 'SENSOR_NETWORK_HOOK', default: undefined, valueName: 'PATH', help: 'linux HAL: executable run as `PATH static IF CIDR` / `PATH dynamic IF` when the IPv4 override is set / removed (e.g. to stop/start DHCP)' },
  { flag: 'chronyc-host', key: 'chronycHost', env: 'SENSOR_CHRONYC_HOST', default: undefined, valueName: 'HOST|SOCKET', help: 'linux HAL: chronyc -h argument (chronyd host or command socket path); default chronyc\'s own' },
  { flag: 'ptp4l-socket', key: 'ptp4lSocket', env: 'SENSOR_PTP4L_SOCKET', default: undefined, valueName: 'PATH', help: 'linux HAL: ptp4l\'s management socket (uds_address); default /var/run/ptp4l' },
  { flag: 'ptp4l-config', key: 'ptp4lConfig', env: 'SENSOR_PTP4L_CONFIG', default: undefined, valueName: 'FILE', help: 'linux HAL: ptp4l configuration file that receives the PTP profile (a managed block at its end)' },
  { flag: 'ptp4l-restart-command', key: 'ptp4lRestartCommand', env: 'SENSOR_PTP4L_RESTART_COMMAND', default: undefined, valueName: 'COMMAND', help: 'linux HAL: command (split on spaces, no shell) run after a profile change, e.g. "systemctl restart ptp4l"' },
  { flag: 'mdns', key: 'mdns', env: 'SENSOR_MDNS', default: 'auto', valueName: MDNS_MODES.join('|'), negatable: true, help: 'mDNS / DNS-SD advertisement (_roger._tcp, _ouster-lidar._tcp): `--mdns` on, `--no-mdns` off; auto: on when --host is not a loopback address' },
  { flag: 'log-level', key: 'logLevel', env: 'SENSOR_LOG_LEVEL', default: 'info', valueName: 'LEVEL', help: `log level: ${LOG_LEVELS.join(', ')}` },
];

export class UsageError extends Error {}

export function helpText(program = 'lidar-sensor'): string {
  const lines = [`Usage: ${program} [options]`, '', 'Starts a lidar sensor management server (a simulated sensor by default).', '', 'Options:'];
  for (const o of OPTION_SPECS) {
    const left = o.negatable ? `  --${o.flag}, --no-${o.flag}` : `  --${o.flag} ${o.valueName}`;
    const dflt = o.default !== undefined ? ` (default ${o.default})` : '';
    lines.push(`${left.padEnd(30)} ${o.help}${dflt}; env ${o.env}`);
  }
  lines.push(`${'  -h, --help'.padEnd(30)} show this help`);
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
        ...Object.fromEntries(OPTION_SPECS.map((o) => [o.flag, { type: o.negatable ? ('boolean' as const) : ('string' as const) }])),
        ...Object.fromEntries(OPTION_SPECS.filter((o) => o.negatable).map((o) => [`no-${o.flag}`, { type: 'boolean' as const }])),
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
    const switched = o.negatable ? (values[`no-${o.flag}`] ? 'off' : values[o.flag] ? 'on' : undefined) : undefined;
    const value = switched ?? (values[o.flag] as string | undefined) ?? env[o.env] ?? o.default;
    raw[o.key] = value;
  }
  const port = Number(raw.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be an integer 0..65535; got ${JSON.stringify(raw.port)}`);
  if (!(HAL_KINDS as readonly string[]).includes(raw.hal ?? '')) throw new UsageError(`--hal must be one of ${HAL_KINDS.join(', ')}; got ${JSON.stringify(raw.hal)}`);
  if (!(LOG_LEVELS as readonly string[]).includes(raw.logLevel ?? '')) throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}; got ${JSON.stringify(raw.logLevel)}`);
  if (!(MDNS_MODES as readonly string[]).includes(raw.mdns ?? '')) throw new UsageError(`SENSOR_MDNS must be one of ${MDNS_MODES.join(', ')}; got ${JSON.stringify(raw.mdns)}`);
  if (!raw.host) throw new UsageError('--host must not be empty');
  if (!raw.dataDir) throw new UsageError('--data-dir must not be empty');
  const firmwareMaxBytes = Number(raw.firmwareMaxBytes);
  if (!Number.isSafeInteger(firmwareMaxBytes) || firmwareMaxBytes < 1) throw new UsageError(`--firmware-max-bytes must be a positive integer; got ${JSON.stringify(raw.firmwareMaxBytes)}`);
  const firmwareBootAttempts = Number(raw.firmwareBootAttempts);
  if (!Number.isInteger(firmwareBootAttempts) || firmwareBootAttempts < 1 || firmwareBootAttempts > 100) throw new UsageError(`--firmware-boot-attempts must be an integer 1..100; got ${JSON.stringify(raw.firmwareBootAttempts)}`);
  return {
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
    networkInterface: raw.networkInterface || undefined,
    networkHook: raw.networkHook || undefined,
    chronycHost: raw.chronycHost || undefined,
    ptp4lSocket: raw.ptp4lSocket || undefined,
    ptp4lConfig: raw.ptp4lConfig || undefined,
    ptp4lRestartCommand: raw.ptp4lRestartCommand?.trim() ? raw.ptp4lRestartCommand.trim().split(/\s+/) : undefined,
    mdns: raw.mdns as MdnsMode,
  };
}

/** The README's option table, generated from OPTION_SPECS (a test keeps them equal). */
export function optionsTableMarkdown(): string {
  const escape = (text: string) => text.replace(/\|/g, '\\|');
  return [
    '| Option | Environment | Default | Meaning |',
    '|---|---|---|---|',
    ...OPTION_SPECS.map(
      (o) => `| \`${o.negatable ? `--${o.flag}\` / \`--no-${o.flag}` : `--${o.flag} ${escape(o.valueName)}`}\` | \`${o.env}\` | ${o.default !== undefined ? `\`${o.default}\`` : '—'} | ${escape(o.help)} |`,
    ),
  ].join('\n');
}
