/**
 * `npm run fuzz`: the fuzz and soak suite against the built server (scripts/fuzz/runner.ts).
 *   npm run fuzz                     long mode: 100,000 route requests, 5,000 malformed, 20 s of slow clients
 *   npm run fuzz -- --quick          the short mode CI runs (also part of `npm test`)
 *   --requests N --raw N --attack-seconds S --seed N --lockout-idle N --lockout-stalled N --json FILE
 *   --write                          also put the figures into docs/benchmarks.md, the one home of measured figures
 * Exit status 1 when a check fails. Figures on stdout as markdown.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { machineFacts } from '../bench/report.js';
import { replaceBetweenMarkers } from './doc-markers.js';
import { ANSWER_BOUND_BYTES, runFuzz, type FuzzOptions, type FuzzReport } from './fuzz/runner.js';

export const QUICK: Omit<FuzzOptions, 'progress'> = {
  requests: 1200,
  rawRequests: 200,
  attackSeconds: 3,
  seed: 11,
  headersTimeout: 1,
  requestTimeout: 1,
  uploadIdleTimeout: 1,
  maxConnections: 256,
  bodyGrace: 1,
  lockoutIdle: 200,
  lockoutStalled: 100,
};
export const LONG: Omit<FuzzOptions, 'progress'> = {
  requests: 100_000,
  rawRequests: 5000,
  attackSeconds: 20,
  seed: 11,
  headersTimeout: 2,
  requestTimeout: 2,
  uploadIdleTimeout: 2,
  maxConnections: 256,
  bodyGrace: 2,
  lockoutIdle: 1000,
  lockoutStalled: 600,
};

/** The issue's memory target for the whole run (VmRSS of the server process). */
export const RSS_BOUND_MB = 200;

export function verdicts(report: FuzzReport): [string, boolean][] {
  return [
    [`max RSS <= ${RSS_BOUND_MB} MB`, report.maxRssMb <= RSS_BOUND_MB],
    ['no 5xx (other than 503 + Retry-After while reinitializing)', report.serverErrors === 0],
    ['no crash', !report.crashed],
    ['no state change after a 4xx', report.stateChangesOn4xx === 0],
    [`no answer over ${ANSWER_BOUND_BYTES / 1024} KB`, report.maxAnswerBytes <= ANSWER_BOUND_BYTES],
    ['every stalled connection closed within its limit', report.stalls.late === 0],
    ['the stalled upload released the lock', report.uploadLockReleasedAfterMs !== undefined],
    ['the well-behaved client was always served', report.wellBehaved.failures === 0],
    [
      'the flood was answered (200 or 503) or closed, and served after',
      !report.failures.some((f) => f.kind === 'flood'),
    ],
    [
      'lockout: the client from another address was always served, and a newcomer from the holding address too',
      !report.failures.some((f) => f.kind === 'lockout'),
    ],
    [
      'restart during an upload: the upload was closed, nothing installed, the lock released',
      !report.failures.some((f) => f.kind === 'restart'),
    ],
  ];
}

export function reportMarkdown(report: FuzzReport): string {
  const r = report.requests;
  return [
    `| Figure | Value |`,
    `|---|---|`,
    `| Requests | ${r.total} in ${report.durationS.toFixed(0)} s: ${r.routes} over the routes (${r.writes} writes, each checked against a state snapshot), ${r.snapshots} snapshot reads, ${r.raw} malformed on raw sockets, ${r.attack} slow/idle/flood connections, ${r.wellBehaved} by the well-behaved client |`,
    `| Statuses | ${Object.entries(report.statuses)
      .map(([s, n]) => `${s}: ${n}`)
      .join(', ')} |`,
    `| 5xx | ${report.serverErrors} (503 with Retry-After during reinit: ${report.documented503}) |`,
    `| Crashes | ${report.crashed ? 1 : 0} |`,
    `| State changes after a 4xx | ${report.stateChangesOn4xx} |`,
    `| Largest answer | ${report.maxAnswerBytes} bytes (${report.maxAnswerWhat}) |`,
    `| Max RSS | ${report.maxRssMb.toFixed(1)} MB |`,
    `| Stalled connections | ${report.stalls.opened} opened, ${report.stalls.closedInTime} closed within their limit, ${report.stalls.late} late |`,
    `| Stalled upload: lock released after | ${report.uploadLockReleasedAfterMs ?? '—'} ms |`,
    `| Flood | ${report.flood.connections} connections: ${report.flood.served} served, ${report.flood.refused503} refused with 503, ${report.flood.other} other |`,
    `| Well-behaved client during the attack | ${report.wellBehaved.count} requests, p50 ${report.wellBehaved.p50Ms.toFixed(2)} / p99 ${report.wellBehaved.p99Ms.toFixed(2)} / max ${report.wellBehaved.maxMs.toFixed(1)} ms, ${report.wellBehaved.failures} failures |`,
    `| Requests the client saw closed before an answer | ${report.clientClosedEarly} |`,
    ...lockoutRows(report),
  ].join('\n');
}

function lockoutRows(report: FuzzReport): string[] {
  const l = report.lockout;
  const r = report.restartDuringUpload;
  const ms = (value: number | undefined) => (value === undefined ? 'never' : `${value} ms`);
  return [
    `| Lockout: one address holds ${l.idle} idle + ${l.stalled} stalled-body connections | ${l.opened} opened (renewed 100 ms after each close); answers ${Object.entries(
      l.statuses,
    )
      .map(([s, n]) => `${s}: ${n}`)
      .join(', ')} |`,
    `| Lockout: stalled bodies cut (408) after | ${l.stalledCutMs.count} cut, median ${l.stalledCutMs.p50} ms, max ${l.stalledCutMs.max} ms |`,
    `| Lockout: a client from another address | ${l.other.count} requests, p50 ${l.other.p50Ms.toFixed(2)} / p99 ${l.other.p99Ms.toFixed(2)} / max ${l.other.maxMs.toFixed(1)} ms, ${l.other.failures} failures |`,
    `| Lockout: a new client from the holding address served after | ${ms(l.sameAddressServedAfterMs)} |`,
    `| Restart during a firmware upload | upload closed ${ms(r?.uploadClosedAfterMs)} after the restart's answer; unit answering again after ${ms(r?.answersAgainAfterMs)}; ${r?.installedNothing ? 'nothing installed' : 'AN IMAGE WAS INSTALLED'}; lock ${r?.lockReleased ? 'released' : 'HELD'} |`,
  ];
}

/** Where `--write` puts a run's figures: a section of the benchmarks page, between these markers. */
export const FIGURES_FILE = resolve(import.meta.dirname, '../docs/benchmarks.md');
export const FIGURES_MARKER = 'fuzz-figures';

/** The block `--write` puts between the markers: when, where and how the run was made, its figures and checks. */
export function figuresBlock(report: FuzzReport, command: string, date = new Date()): string {
  const machine = machineFacts();
  const checks = verdicts(report)
    .map(([what, met]) => `${met ? 'met' : 'FAILED'}: ${what}`)
    .join('; ');
  return [
    `Latest run: ${date.toISOString().slice(0, 10)}, ${machine.cpus} × ${machine.cpuModel}, ${machine.memoryGiB} GiB, Node ${machine.node}, \`${command}\``,
    '',
    reportMarkdown(report),
    '',
    `Checks: ${checks}.`,
  ].join('\n');
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean' },
      requests: { type: 'string' },
      raw: { type: 'string' },
      'attack-seconds': { type: 'string' },
      seed: { type: 'string' },
      'lockout-idle': { type: 'string' },
      'lockout-stalled': { type: 'string' },
      json: { type: 'string' },
      write: { type: 'boolean' },
    },
  });
  const base = values.quick ? QUICK : LONG;
  const options: FuzzOptions = {
    ...base,
    requests: Number(values.requests ?? base.requests),
    rawRequests: Number(values.raw ?? base.rawRequests),
    attackSeconds: Number(values['attack-seconds'] ?? base.attackSeconds),
    seed: Number(values.seed ?? base.seed),
    lockoutIdle: Number(values['lockout-idle'] ?? base.lockoutIdle),
    lockoutStalled: Number(values['lockout-stalled'] ?? base.lockoutStalled),
    progress: (line) => process.stderr.write(`${line}\n`),
  };
  const report = await runFuzz(options);
  process.stdout.write(`${reportMarkdown(report)}\n\n`);
  let ok = true;
  for (const [what, met] of verdicts(report)) {
    process.stdout.write(`${met ? 'ok  ' : 'FAIL'} ${what}\n`);
    ok &&= met;
  }
  for (const failure of report.failures.slice(0, 20)) process.stdout.write(`  ${failure.kind}: ${failure.detail}\n`);
  if (values.json)
    writeFileSync(
      values.json,
      `${JSON.stringify({ date: new Date().toISOString(), options: { ...options, progress: undefined }, report }, null, 2)}\n`,
    );
  if (values.write) {
    const command = ['npm run fuzz', ...(process.argv.length > 2 ? ['--', ...process.argv.slice(2)] : [])].join(' ');
    const text = readFileSync(FIGURES_FILE, 'utf8');
    writeFileSync(
      FIGURES_FILE,
      replaceBetweenMarkers(text, FIGURES_MARKER, figuresBlock(report, command), FIGURES_FILE),
    );
    process.stdout.write(`figures written to ${FIGURES_FILE}\n`);
  }
  return ok ? 0 : 1;
}

if (process.argv[1]?.endsWith('fuzz.ts')) {
  main().then(
    (code) => (process.exitCode = code),
    (error: unknown) => {
      process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
