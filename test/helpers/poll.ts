/**
 * The tests' one way to wait: poll a condition with a deadline instead of sleeping a fixed time.
 */

/**
 * Polls `check` until it returns a truthy value, and returns that value. A check that throws is
 * tried again (a server still starting refuses connections); after the deadline the error names
 * `what` and the last error.
 */
export async function waitFor<T>(
  check: () => Promise<T | undefined | false | null | 0 | ''> | T | undefined | false | null | 0 | '',
  timeoutMs = 10_000,
  what = 'condition',
  // Checks that run a program (docker) poll less often, to leave the CPU to what they wait for.
  intervalMs = 10,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const result = await check();
      if (result) return result as NonNullable<T>;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}${lastError ? `: ${String(lastError)}` : ''}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
