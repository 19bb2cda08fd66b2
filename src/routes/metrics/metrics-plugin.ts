/**
 * `GET /metrics` (Prometheus text format) and the HTTP request metrics behind it. Registered once in
 * src/routes/app.ts; it does not encapsulate, so its onResponse hook sees every route of the app.
 *
 * The metrics code and prom-client (about 40 ms of module loading) are loaded after the unit's first
 * answer, not before it: a unit answers sooner after a start. The requests answered meanwhile are kept
 * (bounded) and recorded once it is loaded; reinits and restarts are counted here from the start.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { Sensor } from '../../core/index.js';
import type { LifecycleCounts, UnitMetrics } from './unit-metrics.js';

export const METRICS_PATH = '/metrics';

declare module 'fastify' {
  interface FastifyInstance {
    /** Counts one answered request in the HTTP metrics (method, route pattern, status, seconds). */
    observeRequest: (method: string, route: string, statusCode: number, seconds: number) => void;
  }
}

/** Requests that matched no route share one label value: raw URLs would grow the series without bound. */
const UNMATCHED_ROUTE = 'unmatched';
/** Requests kept while the metrics code loads (a few milliseconds of answers; a flood beyond is not kept). */
const MAX_EARLY_OBSERVATIONS = 10_000;

type Observation = Parameters<UnitMetrics['observeRequest']>;

const metricsPluginImpl: FastifyPluginAsync<{ sensor: Sensor }> = async (app, { sensor }) => {
  const lifecycle: LifecycleCounts = { reinits: 0, restarts: 0 };
  const onReinit = () => lifecycle.reinits++;
  const onRestart = () => lifecycle.restarts++;
  sensor.on('reinit', onReinit);
  sensor.on('restart', onRestart);
  app.addHook('onClose', (_instance, done) => {
    sensor.off('reinit', onReinit);
    sensor.off('restart', onRestart);
    done();
  });

  let metrics: UnitMetrics | undefined;
  let loading: Promise<UnitMetrics> | undefined;
  const early: Observation[] = [];
  const load = () =>
    (loading ??= import('./unit-metrics.js').then(({ createUnitMetrics }) => {
      const loaded = createUnitMetrics(sensor, lifecycle);
      for (const observation of early.splice(0)) loaded.observeRequest(...observation);
      metrics = loaded;
      return loaded;
    }));

  /** Counts one answered request; also what src/routes/http/prepared-answers.ts counts its answers with. */
  const observeRequest = (method: string, route: string, statusCode: number, seconds: number) => {
    if (metrics) metrics.observeRequest(method, route, statusCode, seconds);
    else {
      if (early.length < MAX_EARLY_OBSERVATIONS) early.push([method, route, statusCode, seconds]);
      // A failed load (a broken install) shows on GET /metrics; it must not end the unit.
      load().catch((err: unknown) => app.log.error({ err }, 'metrics could not be loaded'));
    }
  };
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
