/**
 * The checks' results: one line each on stdout, a summary, and the --json / --junit files a firmware CI reads.
 */
export type CheckStatus = 'pass' | 'fail' | 'skip';

export interface CheckResult {
  id: string;
  title: string;
  status: CheckStatus;
  detail: string;
}

export class CheckLog {
  readonly checks: CheckResult[] = [];
  constructor(private readonly print: (line: string) => void) {}

  record(id: string, title: string, status: CheckStatus, detail = ''): boolean {
    this.checks.push({ id, title, status, detail });
    this.print(`${status.toUpperCase().padEnd(4)} ${id}  ${title}${detail ? ` — ${detail}` : ''}`);
    return status !== 'fail';
  }

  /** Pass when `problem` is empty, else fail with it as the reason. */
  expect(id: string, title: string, problem: string | undefined, passDetail = ''): boolean {
    return this.record(id, title, problem ? 'fail' : 'pass', problem || passDetail);
  }

  skip(id: string, title: string, reason: string): void {
    this.record(id, title, 'skip', reason);
  }

  summary() {
    const count = (s: CheckStatus) => this.checks.filter((c) => c.status === s).length;
    return { pass: count('pass'), fail: count('fail'), skip: count('skip') };
  }
}

export function jsonReport(log: CheckLog): string {
  return `${JSON.stringify({ checks: log.checks, summary: log.summary() }, null, 2)}\n`;
}

const xmlEscape = (s: string) =>
  s.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] ?? c);

export function junitReport(log: CheckLog, target: string, seconds: number): string {
  const s = log.summary();
  const cases = log.checks.map((c) => {
    const open = `    <testcase classname="${xmlEscape(c.id.split('.')[0] ?? c.id)}" name="${xmlEscape(`${c.id} ${c.title}`)}">`;
    if (c.status === 'fail') return `${open}<failure message="${xmlEscape(c.detail)}"/></testcase>`;
    if (c.status === 'skip') return `${open}<skipped message="${xmlEscape(c.detail)}"/></testcase>`;
    return `${open}</testcase>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites tests="${log.checks.length}" failures="${s.fail}" skipped="${s.skip}" time="${seconds.toFixed(3)}">`,
    `  <testsuite name="lidar-sensor validate ${xmlEscape(target)}" tests="${log.checks.length}" failures="${s.fail}" skipped="${s.skip}" time="${seconds.toFixed(3)}">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
