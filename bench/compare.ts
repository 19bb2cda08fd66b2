/**
 * `--compare REF.json`: each figure of this run beside the same figure of an earlier run (matched
 * by name), with the change, and the ratio to its same-run reference (bare Fastify, …) then and now.
 * The same-run ratio is the number to trust on a loaded machine: both sides of it saw the same load.
 */
import { readFileSync } from 'node:fs';
import { fmt, type BenchReport, type Figure } from './report.js';

export function readReport(path: string): BenchReport {
  return JSON.parse(readFileSync(path, 'utf8')) as BenchReport;
}

const escapeCell = (text: string) => text.replace(/\|/g, '\\|');

function change(before: number | null | undefined, after: number | null | undefined): string {
  if (before === null || before === undefined || after === null || after === undefined || before === 0) return '';
  const percent = ((after - before) / Math.abs(before)) * 100;
  return `${percent >= 0 ? '+' : ''}${percent.toFixed(0)} %`;
}

function ratioText(figure: Figure | undefined): string {
  return figure?.ratio === undefined ? '' : `${fmt(figure.ratio)} x ${figure.references?.[0]?.name ?? 'reference'}`;
}

export function renderComparison(earlier: BenchReport, now: BenchReport): string {
  const before = new Map(earlier.rows.map((f) => [f.name, f]));
  const header =
    `Compared with ${earlier.mode} run of ${earlier.date} (Node ${earlier.machine.node})\n\n` +
    '| Figure | Before | After | Change | Same-run ratio before | Same-run ratio after |\n|---|---|---|---|---|---|';
  const lines = now.rows.map((f) => {
    const b = before.get(f.name);
    const cells = [
      f.name,
      b ? `${fmt(b.value)} ${b.unit}` : '(new)',
      `${fmt(f.value)} ${f.unit}`,
      change(b?.value, f.value),
      ratioText(b),
      ratioText(f),
    ];
    return `| ${cells.map(escapeCell).join(' | ')} |`;
  });
  return [header, ...lines].join('\n');
}
