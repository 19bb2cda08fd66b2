/** `npm run bench -- --compare`: figures of two runs side by side, matched by name. */
import { describe, expect, it } from 'vitest';
import { renderComparison } from '../../bench/compare.js';
import type { BenchReport, Figure } from '../../bench/report.js';

const report = (date: string, rows: Figure[]): BenchReport => ({
  date,
  machine: { cpus: 2, cpuModel: 'test', memoryGiB: 4, node: 'v20', platform: 'linux-x64' },
  mode: 'quick',
  durationS: 1,
  rows,
});

describe('bench comparison', () => {
  it('puts each figure beside the earlier one, with the change and both same-run ratios', () => {
    const fastify = (value: number, ratio: number) => ({
      references: [{ name: 'bare Fastify', value, ratio }],
      reference: value,
      ratio,
    });
    const before = report('2026-01-01', [
      { name: 'GET /time requests/s', value: 20000, unit: 'req/s', ...fastify(40000, 0.5) },
    ]);
    const after = report('2026-01-02', [
      { name: 'GET /time requests/s', value: 30000, unit: 'req/s', ...fastify(33333, 0.9) },
      { name: 'start-up', value: 300, unit: 'ms' },
    ]);
    const lines = renderComparison(before, after).split('\n');
    expect(lines[0]).toContain('2026-01-01');
    expect(lines).toContain(
      '| GET /time requests/s | 20000 req/s | 30000 req/s | +50 % | 0.50 x bare Fastify | 0.90 x bare Fastify |',
    );
    expect(lines).toContain('| start-up | (new) | 300.00 ms |  |  |  |');
  });
});
