/**
 * HTTP request counts and latency per route, kept in plain maps and handed to the Prometheus registry
 * when it is scraped. prom-client's own counters and histograms check and hash their labels on every
 * observation, a visible share of the CPU of a cheap request such as GET /api/v1/time
 * (docs/benchmarks.md, figures behind design choices).
 */
import type { Registry } from 'prom-client';

/** Request latency buckets, seconds: most answers take well under a millisecond, uploads and dumps seconds. */
export const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

interface RouteStats {
  method: string;
  route: string;
  byStatus: Map<number, number>;
  /** Observations per bucket (not cumulative); index LATENCY_BUCKETS.length is above the last bound. */
  buckets: number[];
  sum: number;
  count: number;
}

/** One sample as prom-client's registry renders it. */
interface Sample {
  metricName?: string;
  labels: Record<string, string | number>;
  value: number;
}

/** Counts one answered request: `route` is the route pattern (bounded), never the raw URL. */
export type RequestObserver = RequestStats['observe'];

export class RequestStats {
  /** Route pattern → method → figures (nested: no key string is built per request). */
  private readonly routes = new Map<string, Map<string, RouteStats>>();

  observe(method: string, route: string, statusCode: number, seconds: number): void {
    let byMethod = this.routes.get(route);
    if (!byMethod) {
      byMethod = new Map();
      this.routes.set(route, byMethod);
    }
    let stats = byMethod.get(method);
    if (!stats) {
      stats = {
        method,
        route,
        byStatus: new Map(),
        buckets: new Array(LATENCY_BUCKETS.length + 1).fill(0),
        sum: 0,
        count: 0,
      };
      byMethod.set(method, stats);
    }
    stats.byStatus.set(statusCode, (stats.byStatus.get(statusCode) ?? 0) + 1);
    let bucket = 0;
    while (bucket < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[bucket]) bucket++;
    stats.buckets[bucket]++;
    stats.sum += seconds;
    stats.count++;
  }

  private all(): RouteStats[] {
    return [...this.routes.values()].flatMap((byMethod) => [...byMethod.values()]);
  }

  /** Registers `<prefix>http_requests_total` and `<prefix>http_request_duration_seconds` with `registry`. */
  register(registry: Registry, prefix: string): void {
    const requests = `${prefix}http_requests_total`;
    const duration = `${prefix}http_request_duration_seconds`;
    const metric = (name: string, help: string, type: 'counter' | 'histogram', values: () => Sample[]) => ({
      name,
      help,
      type,
      aggregator: 'sum',
      get: async () => ({ name, help, type, aggregator: 'sum', values: values() }),
    });
    // registerMetric takes prom-client's own metric classes in its types; any object with get() is rendered.
    const register = (m: ReturnType<typeof metric>) => registry.registerMetric(m as never);
    register(
      metric(requests, 'HTTP requests answered, by method, route pattern and status code', 'counter', () =>
        this.all().flatMap((s) =>
          [...s.byStatus].map(([status, count]) => ({
            labels: { method: s.method, route: s.route, status_code: status },
            value: count,
          })),
        ),
      ),
    );
    register(
      metric(duration, 'Time from request to response, by method and route pattern', 'histogram', () =>
        this.all().flatMap((s) => histogramSamples(duration, s)),
      ),
    );
  }
}

function histogramSamples(name: string, s: RouteStats): Sample[] {
  const labels = { method: s.method, route: s.route };
  const samples: Sample[] = [];
  let cumulative = 0;
  LATENCY_BUCKETS.forEach((bound, i) => {
    cumulative += s.buckets[i];
    samples.push({ metricName: `${name}_bucket`, labels: { ...labels, le: bound }, value: cumulative });
  });
  samples.push({ metricName: `${name}_bucket`, labels: { ...labels, le: '+Inf' }, value: s.count });
  samples.push({ metricName: `${name}_sum`, labels, value: s.sum });
  samples.push({ metricName: `${name}_count`, labels, value: s.count });
  return samples;
}
