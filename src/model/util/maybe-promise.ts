/**
 * A value that is either at hand or still coming. Hot paths (a poller's GET answered from a cache)
 * take the value at once and pay no promise; everything else can simply `await` it.
 */
export type MaybePromise<T> = T | Promise<T>;

export function isPromise<T>(value: MaybePromise<T>): value is Promise<T> {
  return value instanceof Promise;
}
