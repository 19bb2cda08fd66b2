/**
 * The long power-loss run (the CI test runs a short one): hundreds of power cuts against the real
 * server, each followed by the invariant checks of test/power-loss/harness.ts.
 *
 *   npm run build && npx tsx scripts/power-loss.ts [--kills 300] [--minutes 20] [--seed N] [--max-cycle-ms 1500] [--verbose]
 *
 * Exit status 0 when every invariant held; 1 with the violations (and the kept data directory) otherwise.
 */
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { CLI_PATH, formatReport, runPowerLossHarness } from '../test/power-loss/harness.js';

const { values } = parseArgs({
  options: {
    kills: { type: 'string', default: '300' },
    minutes: { type: 'string', default: '20' },
    seed: { type: 'string' },
    'max-cycle-ms': { type: 'string', default: '1500' },
    verbose: { type: 'boolean', default: false },
  },
  strict: true,
});

function positive(name: string, text: string | undefined): number {
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0) {
    process.stderr.write(`power-loss: --${name} must be a positive number; got ${JSON.stringify(text)}\n`);
    process.exit(2);
  }
  return n;
}

if (!existsSync(CLI_PATH)) {
  process.stderr.write(`power-loss: ${CLI_PATH} is missing; run npm run build first\n`);
  process.exit(2);
}
const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : positive('seed', values.seed);
const report = await runPowerLossHarness({
  kills: positive('kills', values.kills),
  timeBudgetMs: positive('minutes', values.minutes) * 60_000,
  maxCycleMs: positive('max-cycle-ms', values['max-cycle-ms']),
  seed,
  keepDataDir: false,
  log: (line) => {
    if (values.verbose || line.startsWith('VIOLATION')) process.stdout.write(`${line}\n`);
  },
});
process.stdout.write(`${formatReport(report)}\n`);
process.exitCode = report.violations.length ? 1 : 0;
