#!/usr/bin/env node
/**
 * The `lidar-sensor` command: parses options (flags and SENSOR_* environment), starts the unit and
 * closes it gracefully on SIGINT/SIGTERM (streams stopped, database closed).
 */
import pino, { type Logger } from 'pino';
import { helpText, parseCliOptions, UsageError, type CliOptions } from './cli-options.js';
import { startServer, StartupError } from './server.js';
import { LogRing } from './diagnostics/log-ring.js';

/**
 * JSON lines for machines; readable lines when a person watches the terminal. Either way every line
 * is also kept in `recent` (JSON), the tail the diagnostics dump includes.
 */
function createLogger(level: string, recent: LogRing): Logger {
  const output = process.stdout.isTTY
    ? pino.transport({ target: 'pino-pretty', options: { colorize: true, translateTime: 'SYS:HH:MM:ss.l' } })
    : pino.destination(1);
  return pino({ level }, pino.multistream([{ level, stream: output }, { level, stream: recent }]));
}

async function main(): Promise<number> {
  let options: CliOptions | 'help';
  try {
    options = parseCliOptions(process.argv.slice(2), process.env);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`lidar-sensor: ${error.message}\n\n${helpText()}\n`);
      return 2;
    }
    throw error;
  }
  if (options === 'help') {
    process.stdout.write(`${helpText()}\n`);
    return 0;
  }
  const recentLog = new LogRing();
  const logger = createLogger(options.logLevel, recentLog);
  let server;
  try {
    server = await startServer(options, logger, recentLog);
  } catch (error) {
    if (error instanceof StartupError) {
      process.stderr.write(`lidar-sensor: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  logger.info({ url: server.url, product: server.sensor.product.name, serial: server.sensor.identity.serialNumber, hal: options.hal }, 'sensor ready');
  const running = server;
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      logger.info({ signal }, 'shutting down');
      running.close().then(resolve, (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        resolve();
      });
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
  return 0;
}

const fleet = () => import('./fleet/fleet-command.js').then((m) => m.runFleetCommand(process.argv.slice(3)));
(process.argv[2] === 'fleet' ? fleet() : main()).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`lidar-sensor: failed to start: ${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 1;
  },
);
