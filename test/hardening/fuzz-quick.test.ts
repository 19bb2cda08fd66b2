/** The fuzz and soak suite's short mode (`npm run fuzz -- --quick`) against the built server. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FIGURES_FILE, FIGURES_MARKER, figuresBlock, QUICK, reportMarkdown, verdicts } from '../../scripts/fuzz.js';
import { replaceBetweenMarkers } from '../../scripts/doc-markers.js';
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
    // `--write` puts the run into the benchmarks page between its markers, leaving the rest of the page as it was.
    const page = readFileSync(FIGURES_FILE, 'utf8');
    const block = figuresBlock(report, 'npm run fuzz -- --quick', new Date('2026-01-02T00:00:00Z'));
    expect(block).toMatch(/^Latest run: 2026-01-02, \d+ × .+, Node v\d+.*`npm run fuzz -- --quick`$/m);
    expect(block).toContain(reportMarkdown(report));
    const written = replaceBetweenMarkers(page, FIGURES_MARKER, block);
    const outside = (text: string) => text.replace(/<!-- fuzz-figures:start -->[\s\S]*<!-- fuzz-figures:end -->/, '');
    expect(written).toContain(block);
    expect(outside(written)).toBe(outside(page));
  }, 180_000);
});
