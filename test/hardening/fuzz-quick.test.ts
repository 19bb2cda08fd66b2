/** The fuzz and soak suite's short mode (`npm run fuzz -- --quick`) against the built server. */
import { describe, expect, it } from 'vitest';
import { QUICK, reportMarkdown, verdicts } from '../../scripts/fuzz.js';
import { runFuzz } from '../../scripts/fuzz/runner.js';

describe('fuzz and soak (short mode)', () => {
  it('no 5xx, no crash, bounded answers, no state change on 4xx, stalled clients cut, others served', async () => {
    const report = await runFuzz(QUICK);
    // RSS depends on the machine and its load: reported by `npm run fuzz`, not asserted here.
    const failed = verdicts(report)
      .filter(([what, met]) => !met && !what.startsWith('max RSS'))
      .map(([what]) => what);
    expect(failed, `${reportMarkdown(report)}\n${JSON.stringify(report.failures.slice(0, 10), null, 2)}`).toEqual([]);
    expect(report.requests.routes).toBeGreaterThanOrEqual(QUICK.requests);
    // 503 only when every slot is busy: the lockout's stalled bodies fill their address's slots.
    expect(report.lockout.statuses['503']).toBeGreaterThan(0);
    expect(report.lockout.stalledCutMs.count).toBeGreaterThan(0);
  }, 180_000);
});
