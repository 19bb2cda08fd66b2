/**
 * Runs async operations one at a time, in arrival order. Reinit, restart and every configuration
 * change go through one queue so two requests can never interleave their steps.
 *
 * A fence closes the queue to changes: from the moment a restart is acknowledged (a DELETE of the
 * configuration, a restart, a firmware update's reboot) until the unit is back, an operation queued with
 * `run` is refused with the fence's error when its turn comes, so nothing queued behind the acknowledgement
 * is applied before the restart; the restart itself and the unit's own steps pass with `runPastFence`.
 */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();
  private refusal: (() => Error) | undefined;

  /** A change: refused with the fence's error if a fence is up when its turn comes. */
  run<T>(operation: () => Promise<T> | T): Promise<T> {
    return this.enqueue(() => {
      if (this.refusal) throw this.refusal();
      return operation();
    });
  }

  /** What the fence is for (the restart) and what the unit does by itself (shutdown, recovery). */
  runPastFence<T>(operation: () => Promise<T> | T): Promise<T> {
    return this.enqueue(operation);
  }

  /** From now until `lift`, changes are refused with `refusal()`. */
  fence(refusal: () => Error): void {
    this.refusal = refusal;
  }

  lift(): void {
    this.refusal = undefined;
  }

  get fenced(): boolean {
    return this.refusal !== undefined;
  }

  /** Resolves once everything queued so far has finished. */
  idle(): Promise<void> {
    return this.tail.then(() => undefined);
  }

  private enqueue<T>(operation: () => Promise<T> | T): Promise<T> {
    const result = this.tail.then(operation, operation);
    // The queue continues after a failed operation; the failure goes to this caller only.
    this.tail = result.catch(() => undefined);
    return result;
  }
}
