/** A write waiting in group commit's queue (group-commit.ts), and what waits for its flush. */

export interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * A write not yet committed: it runs in the next batch's transaction, inside its own savepoint; once
 * committed, it waits for the flush as a `Waiter` answered with the write's result.
 */
export class QueuedWrite implements Waiter {
  result: unknown;
  /** Set when the write is in the batch's transaction, by running or by being overwritten. */
  committed = false;
  constructor(
    readonly write: () => unknown,
    private readonly done: (result: unknown) => void,
    readonly reject: (error: unknown) => void,
    /** See `GroupCommit.replace`. */
    readonly key?: string,
  ) {}

  resolve(): void {
    this.done(this.result);
  }
}

/** For a batch with keyed writes: each key's last index in it. */
export function keyedLast(batch: QueuedWrite[]): Map<string, number> | undefined {
  let last: Map<string, number> | undefined;
  for (let i = 0; i < batch.length; i++) {
    const key = batch[i].key;
    if (key !== undefined) (last ??= new Map()).set(key, i);
  }
  return last;
}
