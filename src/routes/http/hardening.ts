/** Installs every protection of src/routes/http on an app (one call from buildApp). */
import type { FastifyInstance } from 'fastify';
import { installClientErrorHandler } from './client-error.js';
import { DEFAULT_HTTP_LIMITS, installHttpLimits, type HttpLimits } from './http-limits.js';
import { installRequestLog } from './request-log.js';

export function installHttpHardening(app: FastifyInstance, limits: Partial<HttpLimits> = {}): void {
  installClientErrorHandler(app.server);
  installHttpLimits(app, { ...DEFAULT_HTTP_LIMITS, ...limits });
  installRequestLog(app);
}
