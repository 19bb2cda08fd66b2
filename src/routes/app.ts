/**
 * `buildApp(sensor, options)`: a ready, un-listened Fastify instance with every route of the
 * sensor's interface. Tests use it with `inject()`; src/main/server.ts listens with it. The interface
 * itself is the `sensorApi` plugin (src/routes/sensor-api.ts).
 */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { SensorServices } from '../core/index.js';
import type { RecentLog } from '../core/diagnostics/index.js';
import { sensorApi } from './sensor-api.js';
import { installHttpHardening } from './http/hardening.js';
import { installWriteAccess } from './http/write-access.js';
import type { AddressList, ReplayAnnouncement } from '../model/index.js';
import type { HttpLimits } from './http/http-limits.js';
import { installHttpFaults, type HttpFaultSource } from './http/http-faults.js';
import { metricsPlugin } from './metrics/metrics-plugin.js';
import { webRoutes } from './web/web-routes.js';
import { installPreparedAnswers } from './http/prepared-answers.js';
import { installDateHeader } from './http/date-header.js';
import { lazyDefaultCompilers } from './http/default-compilers.js';
import { answerFrameworkError, MAX_PATH_PARAMETER_CHARS } from './http/framework-errors.js';

export interface AppOptions {
  logger?: Logger;
  /** Recent server log lines, included in the diagnostics dump. */
  recentLog?: RecentLog;
  /** Timeouts and the connection cap (src/routes/http/http-limits.ts); defaults where absent. */
  httpLimits?: Partial<HttpLimits>;
  /** Fault injection's HTTP rules (src/faults); absent: no fault hook at all. */
  faults?: HttpFaultSource;
  /** `--allow-writes-from`: only these peers may change the unit; absent, everyone may (as on a real unit). */
  allowWritesFrom?: AddressList;
  /** `--replay`: the unit's statement that it replays, in its OpenAPI document (src/model/replay-announcement.ts). */
  replaying?: ReplayAnnouncement;
}

/** Clients behind a proxy send absolute-form targets (`GET http://10.0.0.5/api/v1/...`): route on the path. */
function originFormUrl(url: string | undefined): string {
  if (!url) return '/';
  if (url.startsWith('/')) return url;
  const match = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/?#]*(.*)$/.exec(url);
  if (!match) return url;
  return match[1] === '' || match[1].startsWith('?') ? `/${match[1]}` : match[1];
}

export async function buildApp(sensor: SensorServices, options: AppOptions = {}): Promise<FastifyInstance> {
  const logger: FastifyBaseLogger | undefined = options.logger;
  const app = Fastify({
    ...(logger ? { loggerInstance: logger } : { logger: false }),
    // Every request would be two log lines: too much for a unit that serves fleets of pollers.
    logController: new LogController({ disableRequestLogging: true }),
    rewriteUrl: (req) => originFormUrl(req.url),
    bodyLimit: 1024 * 1024,
    routerOptions: { maxParamLength: MAX_PATH_PARAMETER_CHARS },
    frameworkErrors: answerFrameworkError,
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    return503OnClosing: true,
    // The request's own logger is the app's: a pino child per request cost a share of a cheap request's
    // CPU (docs/benchmarks.md, figures behind design choices), and the few request log lines (changes, errors) name their request id themselves.
    childLoggerFactory: (parent) => parent,
    // Ajv and fast-json-stringify only when a schema is compiled (default-compilers.ts).
    schemaController: { compilersFactory: lazyDefaultCompilers() },
  });
  // Before anything else listens to the server's requests and before any route (see the module).
  const prepared = installPreparedAnswers(app);
  const connections = installHttpHardening(app, options.httpLimits);
  installDateHeader(app);
  // A restart (also DELETE config's, and the one after a firmware upload) is a reboot to every client:
  // keep-alive connections, uploads in flight, downloads and streams all end, as on a real unit.
  const reboot = () => connections.policy.closeAll();
  sensor.events.on('restart', reboot);
  app.addHook('onClose', (_app, done) => {
    sensor.events.off('restart', reboot);
    done();
  });
  if (options.allowWritesFrom) installWriteAccess(app, options.allowWritesFrom);
  if (options.faults) installHttpFaults(app, options.faults);
  await app.register(metricsPlugin, { sensor });
  await app.register(sensorApi, { sensor, recentLog: options.recentLog, replaying: options.replaying });
  await app.register(webRoutes, { sensor });
  await app.ready();
  prepared.start(app.observeRequest);
  return app;
}
