/**
 * The built unit as users run it (`npm start`, the Docker image and the device package all run dist/cli.js):
 * every operation of its own OpenAPI document is requested over HTTP (on firmware 3.1, the default, and on
 * 3.2, whose document adds Zone Monitor's routes and parameters), the writes with a valid and an invalid
 * body, and every answer must carry a status and content type the document lists for that operation, never a
 * 5xx. Then each part the bundle loads lazily (its own chunk or a first-use package) is run once the way a user
 * reaches it: the YAML document, the diagnostics dump, the live view, the page, the metrics, the first-use
 * packages, and the commands validate, recording, replay, faults and fleet. The sources (what the other tests
 * inject into) and the bundle can differ, so this is where a difference between them shows.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { readTarGz } from '../diagnostics/archive-reader.js';
import { CLI_PATH, type CliProcess, freePort, startCli } from '../helpers/cli-process.js';
import { startFleet } from '../helpers/fleet-process.js';
import { waitFor } from '../helpers/poll.js';
import { RECORDINGS } from '../helpers/recordings.js';
import {
  type DocumentedCall,
  type DocumentedRequest,
  documentedCalls,
  exampleRequests,
  METHODS,
  type OpenApiDocument,
  RESTARTING,
  responseValidators,
} from '../openapi/openapi-fixture.js';

const run = promisify(execFile);
// A T1 model, so the speed override answers with its success responses too.
const PRODUCT = 'OS-1-128-T1';

/** A running built unit with its own document. */
interface Target {
  unit: CliProcess;
  document: OpenApiDocument;
  validatorOf: ReturnType<typeof responseValidators>;
}

async function startTarget(args: string[]): Promise<Target> {
  const started = await startCli({ args: ['--product', PRODUCT, ...args] });
  const response = await fetch(`${started.baseUrl}/api/v1/openapi.json`);
  expect(response.status).toBe(200);
  const doc = (await response.json()) as OpenApiDocument;
  return { unit: started, document: doc, validatorOf: responseValidators(doc) };
}

/** The firmware 3.1 unit (the default), which the lazily loaded parts below run on too. */
let main: Target;
let unit: CliProcess;
let controlUrl: string;
let document: OpenApiDocument;

beforeAll(async () => {
  const controlPort = await freePort();
  controlUrl = `http://127.0.0.1:${controlPort}`;
  main = await startTarget(['--control', `127.0.0.1:${controlPort}`]);
  ({ unit, document } = main);
});
afterAll(() => unit?.kill());

async function send(t: Target, request: DocumentedRequest): Promise<Response> {
  const url = new URL(request.url, t.unit.baseUrl);
  for (const [name, value] of Object.entries(request.query)) url.searchParams.set(name, value);
  return fetch(url, { method: request.method, headers: request.headers, body: request.payload });
}

/** What contradicts the document in one answer: a 5xx, a status or content type not listed, a body off its schema. */
async function contradictions(t: Target, call: DocumentedCall, response: Response): Promise<string[]> {
  const what = `${call.method.toUpperCase()} ${call.path} → ${response.status}`;
  const body = Buffer.from(await response.arrayBuffer());
  const excerpt = body.subarray(0, 200).toString();
  if (response.status >= 500) return [`${what}: a server error ${excerpt}`];
  const documented = call.operation.responses[String(response.status)];
  if (!documented) return [`${what}: status not documented ${excerpt}`];
  if (!documented.content || call.method === 'head') return [];
  const type = String(response.headers.get('content-type') ?? '').split(';')[0];
  if (!Object.keys(documented.content).includes(type)) return [`${what}: content type ${type} not documented`];
  if (type === 'application/octet-stream') {
    // Binary answers: Zone Monitor's zone set zips, and the gzip archives of the diagnostics dump.
    const zip = call.path.startsWith('/api/v1/zone_monitor/');
    const magic = zip ? [0x50, 0x4b] : [0x1f, 0x8b];
    return body[0] === magic[0] && body[1] === magic[1] ? [] : [`${what}: not ${zip ? 'a zip' : 'gzip'}`];
  }
  const validate = t.validatorOf(call.path, call.method, String(response.status), type);
  const value: unknown = type === 'application/yaml' ? body.toString() : JSON.parse(body.toString());
  return validate(value) ? [] : [`${what}: ${JSON.stringify(validate.errors).slice(0, 300)}`];
}

/** A body no operation accepts: JSON cut short, or bytes that are not a firmware image. */
function invalidBody(request: DocumentedRequest): DocumentedRequest {
  const type = request.headers?.['content-type'] ?? 'application/json';
  const payload = type === 'application/octet-stream' ? Buffer.from('not a firmware image') : '{"cut short":';
  return { ...request, headers: { 'content-type': type }, payload };
}

/** After a restarting operation: the unit answers again and runs. */
async function whenRunning(t: Target): Promise<void> {
  await waitFor(
    async () => {
      const response = await fetch(`${t.unit.baseUrl}/api/v1/sensor/metadata/sensor_info`);
      return response.status === 200 && ((await response.json()) as { status: string }).status === 'RUNNING';
    },
    20_000,
    'the unit running again',
  );
}

/** Each documented path with its path parameters filled from their examples. */
function concretePaths(t: Target): string[] {
  const paths = documentedCalls(t.document).map((call) => exampleRequests(call)[0].url);
  return [...new Set(paths)];
}

/** The firmware 3.2 unit: its own process, started for its pass and ended after it. */
const firmware32 = {
  target: undefined as Target | undefined,
  async get(): Promise<Target> {
    this.target ??= await startTarget(['--firmware-version', '3.2']);
    return this.target;
  },
};
afterAll(() => firmware32.target?.unit.kill());

describe.each([
  ['3.1', async () => main],
  ['3.2', () => firmware32.get()],
])('the built unit on firmware %s answers every operation of its own document as documented', (version, target) => {
  it('every operation, the writes with a valid and an invalid body: no 5xx, nothing undocumented', async () => {
    const t = await target();
    const problems: string[] = [];
    const covered = new Set<string>();
    let requests = 0;
    for (const call of documentedCalls(t.document)) {
      for (const request of exampleRequests(call)) {
        // The invalid body first: it must change nothing, so the valid one after it still runs on the same unit.
        if (request.payload !== undefined) {
          const response = await send(t, invalidBody(request));
          requests++;
          problems.push(...(await contradictions(t, call, response)));
          if (response.status < 400)
            problems.push(`${call.operation.operationId}: an invalid body got ${response.status}`);
        }
        const response = await send(t, request);
        requests++;
        problems.push(...(await contradictions(t, call, response)));
        if (response.status >= 300)
          problems.push(`${call.operation.operationId}: its documented example got ${response.status}`);
        if (RESTARTING.has(call.operation.operationId)) await whenRunning(t);
      }
      covered.add(call.operation.operationId);
    }
    expect(problems).toEqual([]);
    const all = documentedCalls(t.document).map((c) => c.operation.operationId);
    expect([...covered].sort()).toEqual(all.sort());
    expect(requests).toBeGreaterThan(all.length);
    // Zone Monitor's routes are in the document exactly from firmware 3.2 on, and so were requested.
    expect(all.includes('applyZoneSet')).toBe(version === '3.2');
  });

  it('answers a trailing slash on every path with 404 naming the path, whatever the method', async () => {
    const t = await target();
    const problems: string[] = [];
    for (const path of concretePaths(t)) {
      for (const method of METHODS.filter((m) => m !== 'options').map((m) => m.toUpperCase())) {
        const response = await fetch(`${t.unit.baseUrl}${path}/`, { method });
        const body = method === 'HEAD' ? '' : await response.text();
        if (response.status !== 404) problems.push(`${method} ${path}/ → ${response.status}, not 404`);
        else if (method !== 'HEAD' && !body.includes(`the resource is ${path} (without the trailing slash)`))
          problems.push(`${method} ${path}/: the 404 does not name ${path}: ${body}`);
      }
    }
    expect(problems).toEqual([]);
  });
});

describe('the lazily loaded parts of the bundle, each run once', () => {
  it('the YAML document is the JSON document', async () => {
    const response = await fetch(`${unit.baseUrl}/api/v1/openapi.yaml`);
    expect(response.status, await response.clone().text()).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/yaml/);
    expect(parse(await response.text())).toEqual(document);
  });

  it('the diagnostics dump is a readable archive', async () => {
    const response = await fetch(`${unit.baseUrl}/api/v1/diagnostics/dump`);
    expect(response.status).toBe(200);
    const files = await readTarGz(Buffer.from(await response.arrayBuffer()));
    expect(files.size).toBeGreaterThan(3);
    expect([...files.values()].join('\n')).toContain(PRODUCT);
  });

  it("the page, its live view's first event and the metrics", async () => {
    const page = await fetch(`${unit.baseUrl}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/<html/i);
    const abort = new AbortController();
    const live = await fetch(`${unit.baseUrl}/web/api/live-image`, { signal: abort.signal });
    expect(live.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = live.body!.getReader();
    let text = '';
    while (!text.includes('\n\n')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += Buffer.from(value).toString();
    }
    abort.abort();
    expect(text).toMatch(/^(event: \w+\n)?data: \{/m);
    const metrics = await fetch(`${unit.baseUrl}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toMatch(/^# TYPE \w+ \w+$/m);
  });

  it('each first-use package exports from the bundle what the installed package exports', () => {
    const bundled = createRequire(CLI_PATH)('./first-use-packages.cjs') as Record<string, () => object>;
    const installed = createRequire(import.meta.url);
    expect(Object.keys(bundled).length).toBeGreaterThan(0);
    for (const [name, load] of Object.entries(bundled)) {
      const own = installed(name) as object;
      expect(Object.keys(load()).sort(), name).toEqual(Object.keys(own).sort());
      expect(typeof load(), name).toBe(typeof own);
    }
  });

  it('validate passes the unit, faults lists its rules, recording describes a sample', async () => {
    const report = join(mkdtempSync(join(tmpdir(), 'built-validate-')), 'report.json');
    const validate = await run(process.execPath, [CLI_PATH, 'validate', unit.baseUrl, '--json', report]).catch(
      (error: { stdout: string; code: number }) => error,
    );
    expect('code' in validate ? validate.code : 0, validate.stdout).toBe(0);
    const { summary } = JSON.parse(readFileSync(report, 'utf8')) as { summary: { pass: number } };
    expect(summary.pass).toBeGreaterThan(50);
    const faults = await run(process.execPath, [CLI_PATH, 'faults', '--control', controlUrl, 'list', '--json']);
    expect(JSON.parse(faults.stdout)).toBeDefined();
    const recording = await run(process.execPath, [CLI_PATH, 'recording', 'info', join(RECORDINGS, 'crc_test.pcap')]);
    expect(recording.stdout).toMatch(/sensor\s+OS-0-128 .* serial 122247000785/);
  });

  it('a replaying unit is the recorded sensor', async () => {
    const replay = await startCli({ args: ['--replay', join(RECORDINGS, 'crc_test.pcap'), '--replay-loop'] });
    try {
      const info = (await (await fetch(`${replay.baseUrl}/api/v1/sensor/metadata/sensor_info`)).json()) as {
        prod_line: string;
        prod_sn: string;
      };
      expect(info).toMatchObject({ prod_line: 'OS-0-128', prod_sn: '122247000785' });
    } finally {
      await replay.kill();
    }
  });

  it('a fleet of two units answers on both addresses', async () => {
    const port = await freePort('127.0.0.1');
    const dataRoot = mkdtempSync(join(tmpdir(), 'built-fleet-'));
    const fleet = await startFleet([
      '--count',
      '2',
      '--port',
      String(port),
      '--first-address',
      '127.0.3.1',
      '--data-root',
      dataRoot,
    ]);
    try {
      const units = (await (await fetch(`${fleet.endpoint}/units`)).json()) as { url: string }[];
      expect(units).toHaveLength(2);
      for (const { url } of units)
        await waitFor(
          async () => (await fetch(`${url}/api/v1/sensor/metadata/sensor_info`)).status === 200,
          20_000,
          url,
        );
    } finally {
      await fleet.stop();
    }
  });
});
