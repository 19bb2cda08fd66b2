/** Installs every protection of src/routes/http on an app (one call from buildApp). */
import type { FastifyInstance } from 'fastify';
import { installClientErrorHandler } from './client-error.js';
import { DEFAULT_HTTP_LIMITS, installHttpLimits, type HttpConnections, type HttpLimits } from './http-limits.js';
import { installRequestLog } from './request-log.js';

/** Returns the app's connections, which a reboot closes. */
export function installHttpHardening(app: FastifyInstance, limits: Partial<HttpLimits> = {}): HttpConnections {
  installClientErrorHandler(app.server);
  const connections = installHttpLimits(app, { ...DEFAULT_HTTP_LIMITS, ...limits });
  installRequestLog(app);
  return connections;
}
