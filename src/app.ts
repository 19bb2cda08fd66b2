/**
 * `buildApp(sensor, options)`: a ready, un-listened Fastify instance with every route of the
 * sensor's interface. Tests use it with `inject()`; src/server.ts listens with it.
 */
import Fastify, { LogController, type FastifyInstance, type FastifyPluginAsync } from 'fastify';
import type { Logger } from 'pino';
import type { Sensor } from './sensor/sensor.js';
import { installErrorHandler } from './routes/error-handler.js';
import { installJsonBodyParser } from './routes/json-body.js';
import { installNotFoundHandler } from './routes/method-not-allowed.js';
import { configRoutes } from './routes/config.js';
import { userDataRoutes } from './routes/user-data.js';
import { legacyCommandRoutes } from './routes/legacy-commands.js';
import { systemRoutes } from './routes/system.js';
import { metadataRoutes } from './routes/metadata.js';
import { alertRoutes } from './routes/alerts.js';
import { telemetryRoutes } from './routes/telemetry.js';
import { diagnosticsRoutes } from './routes/diagnostics.js';
import { timeRoutes } from './routes/time.js';
import { networkRoutes } from './routes/network.js';
import type { RecentLog } from './diagnostics/sensor-dump.js';
import { webRoutes } from './web/web-routes.js';

export interface AppOptions {
  logger?: Logger;
  /** Recent server log lines, included in the diagnostics dump. */
  recentLog?: RecentLog;
}

/** Every route plugin; each receives `{ sensor }`. Add a resource group by adding its plugin here. */
const ROUTE_PLUGINS: readonly FastifyPluginAsync<{ sensor: Sensor }>[] = [configRoutes, userDataRoutes, legacyCommandRoutes, metadataRoutes, alertRoutes, telemetryRoutes, systemRoutes, timeRoutes, networkRoutes];

/** Clients behind a proxy send absolute-form targets (`GET http://10.0.0.5/api/v1/...`): route on the path. */
function originFormUrl(url: string | undefined): string {
  if (!url) return '/';
  if (url.startsWith('/')) return url;
  const match = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/?#]*(.*)$/.exec(url);
  if (!match) return url;
  return match[1] === '' || match[1].startsWith('?') ? `/${match[1]}` : match[1];
}

export async function buildApp(sensor: Sensor, options: AppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    ...(options.logger ? { loggerInstance: options.logger } : { logger: false }),
    // Every request would be two log lines: too much for a unit that serves fleets of pollers.
    logController: new LogController({ disableRequestLogging: true }),
    rewriteUrl: (req) => originFormUrl(req.url),
    bodyLimit: 1024 * 1024,
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
    return503OnClosing: true,
    ajv: { customOptions: { allErrors: true, removeAdditional: false, coerceTypes: false, useDefaults: false } },
  }) as unknown as FastifyInstance;

  installErrorHandler(app);
  installNotFoundHandler(app);
  installJsonBodyParser(app);

  // Callback-style hooks: they run on every request, and an async hook costs a promise each time.
  app.addHook('onRequest', (_request, _reply, done) => {
    try {
      sensor.assertReachable();
      done();
    } catch (error) {
      done(error as Error);
    }
  });
  // The spec's JSON responses carry exactly `Content-Type: application/json` (JSON is UTF-8 by definition).
  app.addHook('onSend', (_request, reply, payload, done) => {
    const type = reply.getHeader('content-type');
    if (typeof type === 'string' && type.endsWith('json; charset=utf-8')) reply.header('content-type', type.slice(0, -'; charset=utf-8'.length));
    done(null, payload);
  });

  for (const plugin of ROUTE_PLUGINS) await app.register(plugin, { sensor });
  await app.register(diagnosticsRoutes, { sensor, recentLog: options.recentLog });
  await app.register(webRoutes, { sensor });
  await app.ready();
  return app;
}
