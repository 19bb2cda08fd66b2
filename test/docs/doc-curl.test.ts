/**
 * Every `curl` line of the README's and the docs' shell code blocks runs, through bash and exactly as written, against
 * a real unit (the built CLI) started for its page: only the page's own address (`localhost:8080`, `192.0.2.10`, the
 * control listener's `localhost:8081`, the fleet supervisor's `127.0.0.1:9464`) is replaced by the unit's, a file of
 * the repository a line uploads (`@test/…`) is found from the repository's folder, and the
 * variables the page defines (`S=…`) are set. Each answers with a status that is neither 404 nor 5xx, and the status a
 * line's comment names (`# 204 …`) is the one it gets. Lines run in the page's order; after a line that changes the
 * unit (any method but GET) the next waits until the unit runs again, so a restart or a firmware update does not fail
 * the lines after it. The file a line uploads is made by the page's own `npm run firmware-image` line.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, startCli } from '../helpers/cli-process.js';
import { startFleet } from '../helpers/fleet-process.js';
import { waitFor } from '../helpers/poll.js';
import { commentOf, type DocLine, docLines, withoutComment } from './doc-code-blocks.js';
import { ROOT } from './repository-files.js';

const run = promisify(execFile);

/** The addresses the pages give a unit, its control listener and a fleet's supervisor. */
const UNIT_ADDRESSES = [/http:\/\/localhost:8080/g, /http:\/\/192\.0\.2\.10(?![\d.:])/g, /(?<![\w/.:])localhost:8080/g];
const CONTROL_ADDRESSES = [/(?<![\w/.:])localhost:8081/g, /(?<![\w/.:])127\.0\.0\.1:8081/g];
const FLEET_ADDRESSES = [/http:\/\/127\.0\.0\.1:9464/g];
const STATUS_MARK = '__doc_curl_status__';

interface Target {
  /** `http://host:port` of the unit the lines address. */
  unit: string;
  control?: string;
  fleet?: string;
  stop(): Promise<unknown>;
}

/** The unit a page's lines need: the fault plane for docs/faults.md, firmware 3.2 for Zone Monitor, a fleet for docs/fleet.md. */
async function targetFor(page: string): Promise<Target> {
  if (page === 'docs/fleet.md') {
    const dataRoot = mkdtempSync(join(tmpdir(), 'doc-curl-fleet-'));
    const port = await freePort('127.0.2.1');
    const fleet = await startFleet([
      '--count',
      '1',
      '--first-address',
      '127.0.2.1',
      '--port',
      String(port),
      '--data-root',
      dataRoot,
    ]);
    return { unit: `http://127.0.2.1:${port}`, fleet: fleet.endpoint, stop: () => fleet.stop() };
  }
  const args: string[] = [];
  let control: string | undefined;
  if (page === 'docs/faults.md' || page === 'docs/zone-monitor.md') {
    control = `127.0.0.1:${await freePort()}`;
    args.push('--control', control);
  }
  if (page === 'docs/zone-monitor.md') args.push('--firmware-version', '3.2');
  const unit = await startCli({ args });
  return { unit: unit.baseUrl, control: control && `http://${control}`, stop: () => unit.kill() };
}

function substitute(text: string, target: Target): string {
  let out = text;
  for (const pattern of UNIT_ADDRESSES)
    out = out.replace(pattern, (m) => (m.startsWith('http') ? target.unit : target.unit.replace('http://', '')));
  for (const pattern of CONTROL_ADDRESSES)
    if (target.control) out = out.replace(pattern, target.control.replace('http://', ''));
  for (const pattern of FLEET_ADDRESSES) if (target.fleet) out = out.replace(pattern, target.fleet);
  // A file of the repository a line uploads (`@test/fixtures/…`), as from the repository's folder.
  return out.replace(/@((?:test|docs)\/\S+)/g, (_m, path: string) => `@${join(ROOT, path)}`);
}

async function runningAgain(unit: string): Promise<void> {
  await waitFor(
    async () => {
      const res = await fetch(`${unit}/api/v1/sensor/metadata/sensor_info`);
      return res.status === 200 && ((await res.json()) as { status: string }).status === 'RUNNING';
    },
    60_000,
    `${unit} to run again`,
    50,
  );
}

/** A line that sends anything but a GET (`-X POST`, or a body, which makes curl POST). */
function changesTheUnit(line: string): boolean {
  const method = /-X\s+([A-Z]+)/.exec(line)?.[1];
  return method ? method !== 'GET' && method !== 'HEAD' : /\s(?:-d|--data[\w-]*|-F|-T)\s/.test(line);
}

const lines = docLines();
const curlLines = lines.filter((l) => /^curl\s/.test(l.line));
const pages = [...new Set(curlLines.map((l) => l.page))];
const workDirs: string[] = [];
afterAll(() => {
  for (const dir of workDirs) rmSync(dir, { recursive: true, force: true });
});

describe('the curl lines of the docs', () => {
  it('finds them on the pages that show the API', () => {
    expect(curlLines.length).toBeGreaterThan(30);
    expect(pages).toEqual(expect.arrayContaining(['README.md', 'docs/usage.md', 'docs/faults.md', 'docs/fleet.md']));
  });

  it.each(pages)(
    '%s: each curl line answers, neither 404 nor 5xx, with the status its comment names',
    async (page) => {
      const cwd = mkdtempSync(join(tmpdir(), 'doc-curl-'));
      workDirs.push(cwd);
      const target = await targetFor(page);
      const env: Record<string, string> = { ...(process.env as Record<string, string>) };
      const answers: string[] = [];
      try {
        for (const { line } of lines.filter((l: DocLine) => l.page === page)) {
          const variable = /^([A-Z_]+)=(\S+)$/.exec(line);
          if (variable) env[variable[1]] = substitute(variable[2], target);
          else if (/^npm run firmware-image\s/.test(line))
            // The page's own command makes the image its upload line sends; written beside the curl lines, not in the clone.
            await run('bash', ['-c', withoutComment(line).replace(/--out (\S+)/, `--out ${join(cwd, '$1')}`)], {
              cwd: ROOT,
              env,
            });
          if (!/^curl\s/.test(line)) continue;
          // A line piping its answer into a reader (a sample output's) is checked here by its curl alone; what the
          // reader prints is test/docs/doc-outputs.test.ts's.
          const curl = withoutComment(line).split(' | ')[0];
          const command = `${substitute(curl, target)} -w '\\n${STATUS_MARK}%{http_code}'`;
          const { stdout } = await run('bash', ['-c', command], { cwd, env, maxBuffer: 64 * 1024 * 1024 });
          const status = Number(stdout.slice(stdout.lastIndexOf(STATUS_MARK) + STATUS_MARK.length));
          answers.push(`${status} ${line}`);
          expect(status, `${page}: ${line}\n${stdout.slice(0, 500)}`).toBeGreaterThanOrEqual(200);
          expect(status, `${page}: ${line}\n${stdout.slice(0, 500)}`).not.toBe(404);
          expect(status, `${page}: ${line}\n${stdout.slice(0, 500)}`).toBeLessThan(500);
          const named = /^(\d{3})\b/.exec(commentOf(line));
          if (named) expect(status, `${page}: ${line} (its comment names the status)`).toBe(Number(named[1]));
          if (changesTheUnit(line) && !line.includes(':9464')) await runningAgain(target.unit);
        }
      } finally {
        await target.stop();
      }
      expect(answers.length).toBeGreaterThan(0);
    },
    180_000,
  );
});
