/**
 * `GET /metrics` (Prometheus text format) and the HTTP request metrics behind it. Registered once in
 * src/app.ts; it does not encapsulate, so its onResponse hook sees every route of the app.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { Sensor } from '../sensor/sensor.js';
import { createUnitMetrics } from './unit-metrics.js';

export const METRICS_PATH = '/metrics';

/** Requests that matched no route share one label value: raw URLs would grow the series without bound. */
const UNMATCHED_ROUTE = 'unmatched';

const metricsPluginImpl: FastifyPluginAsync<{ sensor: Sensor }> = async (app, { sensor }) => {
  const metrics = createUnitMetrics(sensor);
  app.addHook('onClose', (_instance, done) => {
    metrics.close();
    done();
  });
  // Callback style: this runs for every request (an async hook costs a promise each time).
  app.addHook('onResponse', (request, reply, done) => {
    metrics.observeRequest(
      request.method,
      request.routeOptions.url ?? UNMATCHED_ROUTE,
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
    done();
  });
  // Prometheus' endpoint, not the sensor's API: outside the OpenAPI document.
  app.get(METRICS_PATH, { schema: { hide: true } }, async (_request, reply) => {
    const text = await metrics.render();
    return reply.type(metrics.registry.contentType).send(text);
  });
};

// Fastify's own marker for "register into the parent context" (what fastify-plugin sets).
export const metricsPlugin = Object.assign(metricsPluginImpl, { [Symbol.for('skip-override')]: true });
