/**
 * The result of a slow read (a daemon queried through a subprocess), kept for a while: every caller
 * within `ttlMs` gets the same object, and concurrent callers share one read in flight. A fleet of
 * pollers then costs one daemon query per period, not one per request, and no promise while the
 * value is fresh.
 */
import type { MaybePromise } from './maybe-promise.js';

export class TtlCache<T> {
  private value: { at: number; data: T } | undefined;
  private inFlight: Promise<T> | undefined;

  constructor(
    private readonly read: () => Promise<T>,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The value itself while it is fresh; otherwise the read that brings it. */
  get(): MaybePromise<T> {
    if (this.value && this.now() - this.value.at < this.ttlMs) return this.value.data;
    this.inFlight ??= this.read()
      .then((data) => {
        this.value = { at: this.now(), data };
        return data;
      })
      .finally(() => (this.inFlight = undefined));
    return this.inFlight;
  }

  /** The last value read, however old, without reading. */
  peek(): T | undefined {
    return this.value?.data;
  }

  /** Forget the value (the source changed); a read in flight still completes. */
  invalidate(): void {
    this.value = undefined;
  }

  settled(): Promise<void> {
    return (this.inFlight ?? Promise.resolve()).then(
      () => undefined,
      () => undefined,
    );
  }
}
