/**
 * CI mode of the power-loss harness (about a minute): the real server, cut with SIGKILL at random
 * moments and at every named step of an upload and a slot switch, checked after each power cycle.
 * The long mode is scripts/power-loss.ts. Needs dist/ (npm test builds it first).
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLI_PATH, CRASH_TARGETS, formatReport, INVARIANTS, runPowerLossHarness } from './harness.js';

const SEED = Number(process.env.POWER_LOSS_SEED ?? 20240426);

describe('power loss', () => {
  it('keeps every acknowledged write, no refused one, one configuration state, a complete firmware image, an intact database, and its factory data through cuts while rebuilding a damaged database', {
    timeout: 300_000,
  }, async () => {
    expect(existsSync(CLI_PATH), `${CLI_PATH} is missing: run npm run build`).toBe(true);
    const report = await runPowerLossHarness({ kills: 2 * CRASH_TARGETS.length, timeBudgetMs: 60_000, seed: SEED });
    console.log(formatReport(report));
    expect(report.violations).toEqual([]);
    expect(report.kills).toBeGreaterThan(0);
    expect(report.randomKills).toBeGreaterThan(0);
    expect(Object.keys(report.crashPointKills).length).toBeGreaterThan(0);
    expect(report.acknowledged).toBeGreaterThan(0);
    expect(report.recoveryKills).toBeGreaterThan(0);
    for (const invariant of INVARIANTS) expect(report.checks[invariant], invariant).toBeGreaterThan(0);
  });
});
