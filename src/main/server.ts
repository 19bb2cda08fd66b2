/**
 * A listening unit: the composition root (src/main/unit.ts) built from the CLI's options, then `listen`.
 * Used by the CLI and by end-to-end tests; the only place besides the CLI that calls `listen`.
 */
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { httpLimitsOf, type CliOptions } from './cli-options.js';
import type { RecentLog } from '../core/diagnostics/index.js';
import { mdnsEnabled, type Sensor } from '../core/index.js';
import type { FaultInjectionOptions } from './faults/index.js';
import type { ReplaySetup } from './replay-setup.js';
import { createUnit, StartupError } from './unit.js';

export { StartupError };

export interface RunningServer {
  app: FastifyInstance;
  sensor: Sensor;
  /** e.g. http://127.0.0.1:8080 */
  url: string;
  /** The fault-injection control listener's URL, when `--control` is given. */
  controlUrl?: string;
  close(): Promise<void>;
}

// Replay, fault injection and mDNS are loaded only when asked for: a plain unit starts without them.

/** `--replay`: the recording checked before anything else starts (a bad file is one line, exit 2). */
async function replaySetup(options: CliOptions): Promise<ReplaySetup | undefined> {
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
  options: CliOptions,
): Promise<{ faults?: FaultInjectionOptions; firmwareUpdateMs?: number }> {
  if (!options.control && !options.faultsFile && !options.realisticTiming) return {};
  const { loadScenario, REALISTIC_FIRMWARE_UPDATE_MS } = await import('./faults/index.js');
  const scenario = options.faultsFile ? loadScenario(options.faultsFile) : [];
  if (typeof scenario === 'string') throw new StartupError(scenario);
  return {
    faults: { control: options.control, realisticTiming: options.realisticTiming, scenario },
    firmwareUpdateMs: options.realisticTiming ? REALISTIC_FIRMWARE_UPDATE_MS : undefined,
  };
}

/** `recentLog`: the tail of the server log for the diagnostics dump (the CLI tees its logger into one). */
export async function startServer(options: CliOptions, logger: Logger, recentLog?: RecentLog): Promise<RunningServer> {
  const replay = await replaySetup(options);
  const unit = await createUnit({
    ...options,
    logger,
    recentLog,
    httpLimits: httpLimitsOf(options),
    replay,
    ...(await faultInjection(options)),
  });
  try {
    if (replay) logReplay(logger, replay);
    const url = await unit.app.listen({ host: options.host, port: options.port });
    const port = (unit.app.server.address() as { port: number }).port;
    const log = logger.child({ component: 'mdns' });
    // Discovery is a convenience: a unit that cannot advertise (port 5353 taken exclusively) still serves.
    const mdns = mdnsEnabled(options.mdns, options.host)
      ? await import('../core/discovery/index.js')
          .then(({ startMdnsAdvertiser }) =>
            startMdnsAdvertiser({ sensor: unit.sensor, host: options.host, port, log }),
          )
          .catch((err: unknown) => {
            log.warn({ err }, 'mdns advertisement could not start');
            return null;
          })
      : null;
    return {
      app: unit.app,
      sensor: unit.sensor,
      url,
      controlUrl: unit.controlUrl,
      async close() {
        await mdns?.close();
        await unit.close();
      },
    };
  } catch (error) {
    await unit.close().catch(() => undefined);
    throw error;
  }
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
