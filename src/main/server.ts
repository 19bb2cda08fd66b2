/**
 * A listening unit: the composition root (src/main/unit.ts) built from the CLI's options, then `listen`.
 * Used by the CLI and by end-to-end tests; the only place besides the CLI that calls `listen`.
 */
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { httpLimitsOf, type OptionGroup, type OptionsOf } from './cli-options.js';
import type { RecentLog } from '../core/diagnostics/index.js';
import { mdnsEnabled, type Sensor } from '../core/index.js';
import type { FaultInjectionOptions } from '../faults/index.js';
import type { ReplaySetup } from './replay-setup.js';
import { moveListener } from './listener-move.js';
import { createUnit, StartupError } from './unit.js';
import { FirmwarePolicy, loadTrustStore } from '../core/index.js';
import { dataBindAddress, udpSourceCandidates } from '../udp/index.js';

export { StartupError };

export interface RunningServer {
  app: FastifyInstance;
  sensor: Sensor;
  /** e.g. http://127.0.0.1:8080: where a client on this machine reaches the unit. */
  url: string;
  /** The socket's own address and port, e.g. 0.0.0.0:80 (every address) or 127.0.0.2:8080. */
  listening: string;
  /** The fault-injection control listener's URL, when `--control` is given. */
  controlUrl?: string;
  close(): Promise<void>;
}

/** What a listening unit is built from: every option but the log level (the caller brings its logger). */
export type ServerOptions = OptionsOf<Exclude<OptionGroup, 'log'>>;

// Replay, fault injection and mDNS are loaded only when asked for: a plain unit starts without them.

/** `--replay`: the recording checked before anything else starts (a bad file is one line, exit 2). */
async function replaySetup(options: OptionsOf<'replay' | 'unit'>): Promise<ReplaySetup | undefined> {
  if (!options.replay) return undefined;
  if (options.hal !== 'sim') throw new StartupError('--replay needs the simulated data plane (--hal sim)');
  const [{ prepareReplay }, { RecordingError }] = await Promise.all([
    import('./replay-setup.js'),
    import('../udp/replay/index.js'),
  ]);
  try {
    return prepareReplay(options);
  } catch (error) {
    if (error instanceof RecordingError) throw new StartupError(`cannot replay: ${error.message}`);
    throw error;
  }
}

/**
 * `--control`, `--faults`, `--realistic-timing`: the fault plane's options with the scenario checked (one
 * line, exit 2), and how long a simulated firmware update takes.
 */
async function faultInjection(
  options: OptionsOf<'faults'>,
): Promise<{ faults?: FaultInjectionOptions; firmwareUpdateMs?: number }> {
  if (!options.control && !options.faultsFile && !options.realisticTiming) return {};
  const { loadScenario, REALISTIC_FIRMWARE_UPDATE_MS } = await import('../faults/index.js');
  const scenario = options.faultsFile ? loadScenario(options.faultsFile) : [];
  if (typeof scenario === 'string') throw new StartupError(scenario);
  return {
    faults: { control: options.control, realisticTiming: options.realisticTiming, scenario },
    firmwareUpdateMs: options.realisticTiming ? REALISTIC_FIRMWARE_UPDATE_MS : undefined,
  };
}

/**
 * `--firmware-trust`, `--firmware-min-version`: which images install, with the trusted key fingerprints in
 * the start-up log (an unreadable folder or a bad key in it is one line, exit 2).
 */
async function firmwarePolicy(options: OptionsOf<'firmware'>, logger: Logger): Promise<FirmwarePolicy | undefined> {
  if (!options.firmwareTrust && !options.firmwareMinVersion) return undefined;
  let keys: Awaited<ReturnType<typeof loadTrustStore>> = [];
  if (options.firmwareTrust) {
    try {
      keys = await loadTrustStore(options.firmwareTrust);
    } catch (error) {
      throw new StartupError(`--firmware-trust: ${(error as Error).message}`);
    }
    logger.info(
      {
        trust: options.firmwareTrust,
        keys: keys.map((k) => ({ fingerprint: `sha256:${k.fingerprint}`, file: k.file })),
      },
      keys.length
        ? `firmware uploads must be signed by one of ${keys.length} trusted key(s)`
        : 'the firmware trust folder holds no key: unsigned images install',
    );
  }
  if (options.firmwareMinVersion)
    logger.info(`firmware images older than ${options.firmwareMinVersion} are refused (--firmware-min-version)`);
  return new FirmwarePolicy(keys, options.firmwareMinVersion);
}

/** `recentLog`: the tail of the server log for the diagnostics dump (the CLI tees its logger into one). */
export async function startServer(
  options: ServerOptions,
  logger: Logger,
  recentLog?: RecentLog,
): Promise<RunningServer> {
  const replay = await replaySetup(options);
  const policy = await firmwarePolicy(options, logger);
  if (options.allowWritesFrom)
    logger.info(`only ${options.allowWritesFrom.text} may change the unit (--allow-writes-from); reading stays open`);
  const unit = await createUnit({
    ...options,
    firmwarePolicy: policy,
    logger,
    recentLog,
    httpLimits: httpLimitsOf(options),
    replay,
    ...(await faultInjection(options)),
  });
  try {
    if (replay) logReplay(logger, replay);
    // A start whose persisted network settings moved the address it is bound to answers where the address went.
    const host = unit.sensor.network.boundAddress ?? options.host;
    if (host !== options.host)
      logger.warn(
        { configured: options.host, listening: host },
        `--host ${options.host} is no longer an address of this machine (the unit's static IPv4 override moved it): listening on ${host} instead`,
      );
    const url = await unit.app.listen({ host, port: options.port });
    const { address, port } = unit.app.server.address() as AddressInfo;
    const listening = `${address.includes(':') ? `[${address}]` : address}:${port}`;
    if (runsInContainer()) logDataSource(logger, host);
    const log = logger.child({ component: 'mdns' });
    // Discovery is a convenience: a unit that cannot advertise (port 5353 taken exclusively) still serves.
    const advertise = (on: string) =>
      mdnsEnabled(options.mdns, options.host)
        ? import('../core/discovery/index.js')
            .then(({ startMdnsAdvertiser }) => startMdnsAdvertiser({ sensor: unit.sensor, host: on, port, log }))
            .catch((err: unknown) => {
              log.warn({ err }, 'mdns advertisement could not start');
              return null;
            })
        : Promise.resolve(null);
    let mdns = await advertise(host);
    let moving = Promise.resolve();
    unit.sensor.events.on('address', (move) => {
      moving = moving
        .then(async () => {
          await moveListener(unit.app.server, move.to, port);
          await mdns?.close();
          mdns = await advertise(move.to);
          logger.info({ from: move.from, to: move.to, port }, `listening on ${move.to}:${port}`);
        })
        .catch((err: unknown) => logger.error({ err, to: move.to }, 'the listener could not move to the new address'));
    });
    return {
      app: unit.app,
      sensor: unit.sensor,
      url,
      listening,
      controlUrl: unit.controlUrl,
      async close() {
        await moving;
        await mdns?.close();
        await unit.close();
      },
    };
  } catch (error) {
    await unit.close().catch(() => undefined);
    throw error;
  }
}

/** Docker and Podman each leave a marker file at the root of a container. */
function runsInContainer(): boolean {
  return existsSync('/.dockerenv') || existsSync('/run/.containerenv');
}

/**
 * In a container the unit is usually reached through a published port, i.e. through NAT, while its UDP leaves
 * from the container's own address: the vendor's clients then drop every datagram (docs/deployments.md).
 */
function logDataSource(logger: Logger, host: string): void {
  const udpFrom = udpSourceCandidates(dataBindAddress(host));
  logger.info(
    { udpFrom },
    `lidar and IMU data leave from ${udpFrom.join(', ') || 'no address yet'}: clients that keep only datagrams from the address they talk HTTP to (the vendor SDK, ouster-ros) must reach this unit there, not through a published port`,
  );
}

function logReplay(logger: Logger, replay: ReplaySetup): void {
  const { recording: r, settings } = replay;
  logger.info(
    {
      file: r.file,
      metadata: r.metadataFile,
      profile: r.profile,
      rate: settings.rate,
      loop: settings.loop,
      startS: settings.startOffsetNs / 1e9,
      packets: r.packets.length,
    },
    `replaying ${r.metadata.sensorInfo.prod_line} ${r.metadata.sensorInfo.prod_sn}`,
  );
  for (const fault of replay.faults) logger.warn({ file: r.file }, `recording: ${fault}`);
}
