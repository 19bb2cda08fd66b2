/**
 * The `lidar-sensor` command, loaded by its entry (cli.ts): parses options (flags and SENSOR_*
 * environment), starts the unit and closes it gracefully on SIGINT/SIGTERM (streams stopped, database
 * closed). The subcommands and the server are imported dynamically, when the command line asks for them.
 */
import { helpText, parseCliOptions, UsageError, type CliOptions } from './cli-options.js';
import { createServiceNotifier } from './service-notify.js';
import type { DataDirLock } from '../store/index.js';
import type { StartUnit } from '../fleet/index.js';

/** The kernel releases it when the process ends, even on SIGKILL; kept referenced until then. */
let dataDirLock: DataDirLock | undefined;

/** A unit of a fleet of process model `shared`: started in this process from its arguments, as `main` would. */
const startSharedUnit: StartUnit = async (args, log) => {
  const options = parseCliOptions(args, {});
  if (options === 'help') throw new Error('unexpected --help in a unit plan');
  const { startServer } = await import('./server.js');
  return startServer(options, log.child({}, { level: options.logLevel }));
};

/** A command other than starting the unit (each loaded only when asked for): its exit status; undefined: none. */
async function otherCommand(): Promise<number | undefined> {
  if (process.argv[2] === 'fleet')
    return (await import('../fleet/index.js')).runFleetCommand(process.argv.slice(3), startSharedUnit);
  if (process.argv[2] === 'faults') return (await import('../faults/index.js')).runFaultsCli(process.argv.slice(3));
  if (process.argv[2] === 'validate') {
    const [{ runValidateCommand }, { ownOpenApiDocument }] = await Promise.all([
      import('../validate/index.js'),
      import('./own-openapi.js'),
    ]);
    return runValidateCommand(process.argv.slice(3), ownOpenApiDocument);
  }
  if (process.argv[2] === 'recording')
    return (await import('./recording-command.js')).runRecordingCommand(process.argv);
  if (process.argv.slice(2).includes('--version')) {
    process.stdout.write(`${(await import('./package-version.js')).packageVersion()}\n`);
    return 0;
  }
  return undefined;
}

async function main(): Promise<number> {
  const other = await otherCommand();
  if (other !== undefined) return other;
  let options: CliOptions | 'help';
  try {
    options = parseCliOptions(process.argv.slice(2), process.env);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`lidar-sensor: ${error.message}\nsee lidar-sensor --help\n`);
      return 2;
    }
    throw error;
  }
  if (options === 'help') {
    process.stdout.write(`${helpText()}\n`);
    return 0;
  }
  const [{ startServer, StartupError }, { LogRing }, { createCliLogger }, { describeStartupFailure }, { lockDataDir }] =
    await Promise.all([
      import('./server.js'),
      import('../core/index.js'),
      import('./cli-logger.js'),
      import('./startup-failure.js'),
      import('../store/index.js'),
    ]);
  const recentLog = new LogRing();
  const logger = createCliLogger(options.logLevel, recentLog);
  let server;
  try {
    // Held until the process ends (a module-level reference: the lock must outlive this function).
    dataDirLock = lockDataDir(options.dataDir);
    server = await startServer(options, logger, recentLog);
  } catch (error) {
    const explained = error instanceof StartupError ? error.message : describeStartupFailure(error, options);
    if (explained !== undefined) {
      process.stderr.write(`lidar-sensor: ${explained}\n`);
      logger.flush?.();
      return error instanceof StartupError ? error.exitStatus : 2;
    }
    throw error;
  }
  logger.info(
    {
      url: server.url,
      listening: server.listening,
      product: server.sensor.product.name,
      serial: server.sensor.identity.serialNumber,
      hal: options.hal,
    },
    'sensor ready',
  );
  const notifier = createServiceNotifier({
    onError: (error) => logger.warn({ err: error }, 'telling systemd the service state failed'),
  });
  notifier.ready(`serving ${server.url}`);
  const running = server;
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      logger.info({ signal }, 'shutting down');
      notifier.stopping();
      running.close().then(resolve, (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        resolve();
      });
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
  dataDirLock?.release();
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`lidar-sensor: failed to start: ${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 1;
  },
);
