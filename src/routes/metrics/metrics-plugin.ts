/**
 * `GET /metrics` (Prometheus text format) and the HTTP request metrics behind it. Registered once in
 * src/routes/app.ts; it does not encapsulate, so its onResponse hook sees every route of the app.
 *
 * The request figures are kept from the start in plain maps (request-stats.ts, no prom-client); the
 * Prometheus registry, the unit's other metrics and prom-client (module loading and heap:
 * docs/benchmarks.md, figures behind design choices) are loaded on the first scrape: a unit nobody scrapes never loads them. Every other
 * metric is read from the unit when scraped; reinits and restarts are counted here from the start.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { SensorServices } from '../../core/index.js';
import { type RequestObserver, RequestStats } from './request-stats.js';
import type { LifecycleCounts, UnitMetrics } from './unit-metrics.js';

export const METRICS_PATH = '/metrics';

declare module 'fastify' {
  interface FastifyInstance {
    /** Counts one answered request in the HTTP metrics (method, route pattern, status, seconds). */
    observeRequest: RequestObserver;
  }
}

/** Requests that matched no route share one label value: raw URLs would grow the series without bound. */
const UNMATCHED_ROUTE = 'unmatched';

const metricsPluginImpl: FastifyPluginAsync<{ sensor: SensorServices }> = async (app, { sensor }) => {
  const lifecycle: LifecycleCounts = { reinits: 0, restarts: 0 };
  const onReinit = () => lifecycle.reinits++;
  const onRestart = () => lifecycle.restarts++;
  sensor.events.on('reinit', onReinit);
  sensor.events.on('restart', onRestart);
  app.addHook('onClose', (_instance, done) => {
    sensor.events.off('reinit', onReinit);
    sensor.events.off('restart', onRestart);
    done();
  });

  const requests = new RequestStats();
  let metrics: UnitMetrics | undefined;
  let loading: Promise<UnitMetrics> | undefined;
  // A failed load (a broken install) shows on GET /metrics; it must not end the unit.
  const load = () =>
    (loading ??= import('./unit-metrics.js').then(({ createUnitMetrics }) => {
      metrics = createUnitMetrics(sensor, lifecycle, requests);
      return metrics;
    }));

  /** Counts one answered request; also what src/routes/http/prepared-answers.ts counts its answers with. */
  const observeRequest: RequestObserver = (method, route, statusCode, seconds) =>
    requests.observe(method, route, statusCode, seconds);
  app.decorate('observeRequest', observeRequest);
  // Callback style: this runs for every request (an async hook costs a promise each time).
  app.addHook('onResponse', (request, reply, done) => {
    observeRequest(
      request.method,
      request.routeOptions.url ?? UNMATCHED_ROUTE,
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
    done();
  });
  // Prometheus' endpoint, not the sensor's API: outside the OpenAPI document.
  app.get(METRICS_PATH, { schema: { hide: true } }, async (_request, reply) => {
    const loaded = metrics ?? (await load());
    const text = await loaded.render();
    return reply.type(loaded.registry.contentType).send(text);
  });
};

// Fastify's own marker for "register into the parent context" (what fastify-plugin sets).
export const metricsPlugin = Object.assign(metricsPluginImpl, { [Symbol.for('skip-override')]: true });
