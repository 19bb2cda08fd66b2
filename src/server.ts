/**
 * A listening unit: the composition root (src/unit.ts) built from the CLI's options, then `listen`.
 * Used by the CLI and by end-to-end tests; the only place besides the CLI that calls `listen`.
 */
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { httpLimitsOf, type CliOptions } from './cli-options.js';
import type { RecentLog } from './diagnostics/sensor-dump.js';
import type { Sensor } from './sensor/sensor.js';
import { createUnit } from './unit.js';

export { StartupError } from './unit.js';

export interface RunningServer {
  app: FastifyInstance;
  sensor: Sensor;
  /** e.g. http://127.0.0.1:8080 */
  url: string;
  close(): Promise<void>;
}

/** `recentLog`: the tail of the server log for the diagnostics dump (the CLI tees its logger into one). */
export async function startServer(options: CliOptions, logger: Logger, recentLog?: RecentLog): Promise<RunningServer> {
  const unit = await createUnit({ ...options, logger, recentLog, httpLimits: httpLimitsOf(options) });
  try {
    const url = await unit.app.listen({ host: options.host, port: options.port });
    return { app: unit.app, sensor: unit.sensor, url, close: () => unit.close() };
  } catch (error) {
    await unit.close().catch(() => undefined);
    throw error;
  }
}
