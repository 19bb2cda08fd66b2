/** Reading Prometheus text with an independent parser (parse-prometheus-text-format), for assertions. */
import parsePrometheusTextFormat, { type PrometheusFamily, type PrometheusSample } from 'parse-prometheus-text-format';

export type { PrometheusFamily, PrometheusSample };

export function parseMetrics(text: string): Map<string, PrometheusFamily> {
  return new Map(parsePrometheusTextFormat(text).map((family) => [family.name, family]));
}

/** The samples of `name` whose labels include every pair of `labels`. */
export function samples(
  families: Map<string, PrometheusFamily>,
  name: string,
  labels: Record<string, string> = {},
): PrometheusSample[] {
  const family = families.get(name);
  if (!family) throw new Error(`no metric family ${name}; have ${[...families.keys()].join(', ')}`);
  return family.metrics.filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
}

/** The value of the one sample of `name` with `labels` (NaN when there is none). */
export function sampleValue(
  families: Map<string, PrometheusFamily>,
  name: string,
  labels: Record<string, string> = {},
): number {
  const found = samples(families, name, labels);
  if (found.length !== 1) return Number.NaN;
  return Number(found[0].value);
}
