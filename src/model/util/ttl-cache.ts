/**
 * The result of a slow read (a daemon queried through a subprocess), kept for a while: every caller
 * within `ttlMs` gets the same object, and concurrent callers share one read in flight. A fleet of
 * pollers then costs one daemon query per period, not one per request. `fresh()` hands the value over
 * without a promise while it is fresh, for hot paths that answer from it synchronously.
 *
 * `shareMs` bounds the sharing: a read in flight longer than that (a daemon that stopped answering) is
 * not handed to later callers, who start their own; whatever the late read brings never replaces a
 * value read after it started.
 */
export class TtlCache<T> {
  private value: { at: number; startedAt: number; data: T } | undefined;
  private inFlight: { promise: Promise<T>; startedAt: number } | undefined;

  constructor(
    private readonly read: () => Promise<T>,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
    private readonly shareMs = Number.POSITIVE_INFINITY,
  ) {}

  /** The value while it is fresh, else undefined (then `get` reads it). */
  fresh(): T | undefined {
    const value = this.value;
    // A value that never expires needs no clock: this is the per-request path of GET /api/v1/time.
    if (this.ttlMs === Number.POSITIVE_INFINITY) return value?.data;
    return value && this.now() - value.at < this.ttlMs ? value.data : undefined;
  }

  /** The value while it is fresh; otherwise the read that brings it. */
  get(): Promise<T> {
    const value = this.value;
    const now = this.now();
    if (value && now - value.at < this.ttlMs) return Promise.resolve(value.data);
    if (this.inFlight && now - this.inFlight.startedAt < this.shareMs) return this.inFlight.promise;
    const read = { startedAt: now, promise: this.read() };
    read.promise = read.promise
      .then((data) => {
        if (!this.value || this.value.startedAt <= read.startedAt)
          this.value = { at: this.now(), startedAt: read.startedAt, data };
        return data;
      })
      .finally(() => {
        if (this.inFlight === read) this.inFlight = undefined;
      });
    this.inFlight = read;
    return read.promise;
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
    return (this.inFlight?.promise ?? Promise.resolve()).then(
      () => undefined,
      () => undefined,
    );
  }
}
