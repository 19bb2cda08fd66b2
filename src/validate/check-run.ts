/**
 * The record of one validation run: every check is a named function that passes (optionally with a
 * detail), fails (throws with the reason) or is skipped (throws `SkipCheck` with the reason).
 */

export type CheckStatus = 'PASS' | 'FAIL' | 'SKIP';

export interface CheckResult {
  id: string;
  title: string;
  status: CheckStatus;
  detail: string;
}

/** Thrown by a check that does not apply to this unit: a skip with its reason, never a silent pass. */
export class SkipCheck extends Error {}

/** Fails the running check with `message` unless `condition` holds. */
export function expectThat(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

/** Compact JSON for details: long values are cut so that one line stays one line. */
export function show(value: unknown, max = 120): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** One check of a list judged from what was read once: its id, its title, its body (as `CheckRun.check` takes them). */
export type NamedCheck = [id: string, title: string, body: () => unknown];

export class CheckRun {
  readonly results: CheckResult[] = [];

  constructor(private readonly onResult: (result: CheckResult) => void = () => {}) {}

  /** Runs one check; true when it passed. A check never stops the run. */
  async check(id: string, title: string, body: () => unknown): Promise<boolean> {
    let result: CheckResult;
    try {
      const detail = await body();
      result = { id, title, status: 'PASS', detail: typeof detail === 'string' ? detail : '' };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      result = { id, title, status: error instanceof SkipCheck ? 'SKIP' : 'FAIL', detail: message };
    }
    this.record(result);
    return result.status === 'PASS';
  }

  /**
   * What a group of checks judges, read once. When it cannot be read, the group is one SKIP with the reason
   * (not a row of failures that all say the same) and the answer is undefined.
   */
  async readOrSkip<T>(
    id: string,
    title: string,
    read: () => Promise<T>,
    reason = (message: string) => message,
  ): Promise<T | undefined> {
    try {
      return await read();
    } catch (error) {
      this.skip(id, title, reason((error as Error).message));
      return undefined;
    }
  }

  skip(id: string, title: string, reason: string): void {
    this.record({ id, title, status: 'SKIP', detail: reason });
  }

  summary(): { pass: number; fail: number; skip: number } {
    const count = (status: CheckStatus) => this.results.filter((r) => r.status === status).length;
    return { pass: count('PASS'), fail: count('FAIL'), skip: count('SKIP') };
  }

  private record(result: CheckResult): void {
    this.results.push(result);
    this.onResult(result);
  }
}
