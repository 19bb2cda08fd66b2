/** The three forms of a run's result: one text line per check, a JSON document, JUnit XML for CI. */
import type { CheckResult } from './check-run.js';

export type Summary = { pass: number; fail: number; skip: number };

export function textLine(result: CheckResult): string {
  return `${result.status} ${result.id} ${result.title}${result.detail ? ` — ${result.detail}` : ''}`;
}

export function jsonReport(results: readonly CheckResult[], summary: Summary, extra: Record<string, unknown>): string {
  return `${JSON.stringify({ ...extra, checks: results, summary }, null, 2)}\n`;
}

const xml = (text: string) =>
  text
    .replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] ?? c)
    // XML 1.0 forbids most control characters even escaped.
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');

/** One testsuite; each check a testcase named by its id, classname its group (the id's first part). */
export function junitReport(results: readonly CheckResult[], summary: Summary, suite: string, seconds: number): string {
  const cases = results.map((r) => {
    const open = `    <testcase classname="validate.${xml(r.id.split('.')[0])}" name="${xml(`${r.id} ${r.title}`)}" time="0">`;
    if (r.status === 'PASS') return `${open}</testcase>`;
    if (r.status === 'SKIP') return `${open}<skipped message="${xml(r.detail)}"/></testcase>`;
    return `${open}<failure message="${xml(r.detail)}">${xml(r.detail)}</failure></testcase>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="lidar-sensor validate" tests="${results.length}" failures="${summary.fail}" skipped="${summary.skip}" time="${seconds.toFixed(3)}">`,
    `  <testsuite name="${xml(suite)}" tests="${results.length}" failures="${summary.fail}" errors="0" skipped="${summary.skip}" time="${seconds.toFixed(3)}">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
