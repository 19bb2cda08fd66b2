/**
 * Runs async operations one at a time, in arrival order. Reinit, restart and every configuration
 * change go through one queue so two requests can never interleave their steps.
 */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(operation: () => Promise<T> | T): Promise<T> {
    const result = this.tail.then(operation, operation);
    // The queue continues after a failed operation; the failure goes to this caller only.
    this.tail = result.catch(() => undefined);
    return result;
  }

  /** Resolves once everything queued so far has finished. */
  idle(): Promise<void> {
    return this.tail.then(() => undefined);
  }
}
