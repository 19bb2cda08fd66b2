/** Percentiles of measured samples (nearest-rank on a sorted copy). */

export interface Spread {
  count: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

/** Nearest-rank percentile of an ascending array; NaN when empty. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

/** Spread of the first `count` samples (the rest of a preallocated buffer is ignored). */
export function spread(samples: ArrayLike<number>, count = samples.length): Spread {
  const sorted = Float64Array.from({ length: count }, (_, i) => samples[i]).sort();
  return {
    count,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    max: count ? sorted[count - 1] : Number.NaN,
  };
}

export function median(values: readonly number[]): number {
  return percentile(Float64Array.from(values).sort(), 50);
}
