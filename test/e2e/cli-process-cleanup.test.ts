/**
 * The tests' own unit launcher: a unit that never answers within its readiness deadline is killed
 * before the error reaches the test, instead of outliving the test worker with a port and CPU held.
 */
import { execFileSync } from 'node:child_process';
import { expect, it } from 'vitest';
import { startCli } from '../helpers/cli-process.js';

/** Command lines of running processes that carry `marker`. */
function processesWith(marker: string): string[] {
  return execFileSync('ps', ['-eo', 'args'])
    .toString()
    .split('\n')
    .filter((line) => line.includes(marker) && line.includes('cli.js'));
}

it('kills a unit that does not answer before its readiness deadline', async () => {
  const serial = '999000222';
  await expect(startCli({ args: ['--serial', serial], readyTimeoutMs: 1 })).rejects.toThrow(/the CLI to answer/);
  expect(processesWith(serial)).toEqual([]);
});
