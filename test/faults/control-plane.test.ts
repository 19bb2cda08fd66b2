/**
 * The control plane end to end, through the real CLI: a loopback-only listener apart from the
 * sensor API, validated rules (400 naming every mistake), a scenario file from start,
 * `--realistic-timing` (a client polling sensor_info during PUT lidar_mode sees INITIALIZING then
 * RUNNING), and the `lidar-sensor faults` client.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCliOptions, UsageError } from '../../src/main/cli-options.js';
import { ALERT_IDS } from '../../src/model/alert-catalogue.js';
import { freePort, runCli, startCli, type CliProcess } from '../helpers/cli-process.js';
import { waitFor } from '../helpers/poll.js';

describe('the control listener is loopback-only and apart from the sensor API', () => {
  it('refuses a non-loopback bind unless --control-allow-remote is given', () => {
    expect(() => parseCliOptions(['--control', '0.0.0.0:8081'], {})).toThrow(/--control-allow-remote/);
    expect(() => parseCliOptions(['--control', '192.168.1.5:8081'], {})).toThrow(UsageError);
    const allowed = parseCliOptions(['--control', '0.0.0.0:8081', '--control-allow-remote'], {});
    expect(allowed).toMatchObject({ control: { host: '0.0.0.0', port: 8081 }, controlAllowRemote: true });
    expect(parseCliOptions(['--control', '[::1]:9000'], {})).toMatchObject({ control: { host: '::1', port: 9000 } });
    expect(parseCliOptions([], { SENSOR_CONTROL: '127.0.0.2:9001' })).toMatchObject({
      control: { host: '127.0.0.2', port: 9001 },
    });
    expect(parseCliOptions([], {})).toMatchObject({ control: undefined, realisticTiming: false });
  });

  it('never shares the sensor API port', () => {
    expect(() => parseCliOptions(['--port', '8080', '--control', '127.0.0.1:8080'], {})).toThrow(/sensor API's port/);
  });

  it('the CLI exits with a usage error for a remote bind without the flag', async () => {
    const result = await runCli(['--control', '0.0.0.0:18081', '--data-dir', mkdtempSync(join(tmpdir(), 'faults-'))]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/not a loopback address.*--control-allow-remote/);
  });

  it('a scenario file with a mistake stops the start, naming the step', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'faults-'));
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, 'steps:\n  - at_ms: 0\n    selector: { plane: udp }\n    action: { type: dorp }\n');
    const result = await runCli(['--faults', file, '--data-dir', dir]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('/steps/0/action/type');
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('a unit with --control, --faults and --realistic-timing', () => {
  let unit: CliProcess;
  let control: string;
  let scenarioDir: string;

  beforeAll(async () => {
    scenarioDir = mkdtempSync(join(tmpdir(), 'faults-scenario-'));
    const scenario = join(scenarioDir, 'scenario.yaml');
    writeFileSync(
      scenario,
      [
        '# OVERTEMP for a moment, shortly after start',
        'steps:',
        '  - at_ms: 200',
        '    selector: { plane: unit }',
        '    action: { type: alert, id: OVERTEMP_WARNING }',
        '    lifetime: { duration_ms: 300 }',
      ].join('\n'),
    );
    const controlPort = await freePort();
    control = `http://127.0.0.1:${controlPort}`;
    unit = await startCli({
      args: [
        '--control',
        `127.0.0.1:${controlPort}`,
        '--faults',
        scenario,
        '--realistic-timing',
        '--product',
        'OS-1-32',
      ],
    });
  });

  afterAll(async () => {
    await unit?.stop();
    rmSync(scenarioDir, { recursive: true, force: true });
  });

  it('the sensor API knows nothing of /faults', async () => {
    expect((await fetch(`${unit.baseUrl}/faults`)).status).toBe(404);
    const post = await fetch(`${unit.baseUrl}/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(post.status).toBe(404);
    expect((await fetch(`${control}/faults`)).status).toBe(200);
    expect((await fetch(`${control}/api/v1/sensor/config`)).status).toBe(404);
  });

  it('the scenario raised and cleared OVERTEMP on its timeline', async () => {
    const ended = await waitFor(
      async () => {
        const list = (await (await fetch(`${control}/faults`)).json()) as { ended: { action: { type: string } }[] };
        return list.ended.some((e) => e.action.type === 'alert');
      },
      10_000,
      'the scenario step to end',
    );
    expect(ended).toBe(true);
    const alerts = (await (await fetch(`${unit.baseUrl}/api/v1/sensor/alerts`)).json()) as {
      log: { id: string; active: boolean }[];
    };
    const entries = alerts.log.filter((e) => e.id === ALERT_IDS.OVERTEMP_WARNING).map((e) => e.active);
    expect(entries).toEqual([true, false]);
  });

  it('a rule with several mistakes: 400 problem+json naming each, nothing added', async () => {
    const res = await fetch(`${control}/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        selector: { plane: 'udp', stream: 'radar' },
        action: { type: 'drop', rate: 2, burts: 3 },
        lifetime: { count: 0 },
      }),
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/); // problem body; problem+json only on Accept
    const body = (await res.json()) as { errors: { pointer: string }[] };
    expect(body.errors.map((e) => e.pointer).sort()).toEqual([
      '/action/burts',
      '/action/rate',
      '/lifetime/count',
      '/selector/stream',
    ]);
    const list = (await (await fetch(`${control}/faults`)).json()) as { rules: unknown[] };
    expect(list.rules).toEqual([]);
  });

  it('realistic timing: a client polling sensor_info during PUT lidar_mode sees INITIALIZING, RUNNING', async () => {
    const put = fetch(`${unit.baseUrl}/api/v1/sensor/config/lidar_mode`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: '"512x10"',
    });
    const seen: string[] = [];
    await waitFor(
      async () => {
        const info = (await (await fetch(`${unit.baseUrl}/api/v1/sensor/metadata/sensor_info`)).json()) as {
          status: string;
        };
        if (seen.at(-1) !== info.status) seen.push(info.status);
        return seen.includes('INITIALIZING') && info.status === 'RUNNING';
      },
      10_000,
      'INITIALIZING then RUNNING',
    );
    expect((await put).status).toBeLessThan(300);
    expect(seen.slice(seen.indexOf('INITIALIZING'))).toEqual(['INITIALIZING', 'RUNNING']);
  });

  it('the faults client adds, lists and clears rules', async () => {
    const add = await runCli([
      'faults',
      '--control',
      control,
      'add',
      'http:/api/v1/sensor/metadata*',
      'status',
      'status=503',
      'retry_after_s=4',
      '--count',
      '1',
    ]);
    expect(add.code).toBe(0);
    expect(add.stdout).toMatch(/^f\d+ +http/);
    const res = await fetch(`${unit.baseUrl}/api/v1/sensor/metadata`);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('4');
    const list = await runCli(['faults', '--control', control, 'list']);
    expect(list.stdout).toMatch(/status status=503 retry_after_s=4 .*applied 1 .*ended: count reached/);

    // An alert's vars print as JSON (not `[object Object]`) and can be typed back.
    const forced = await runCli([
      'faults',
      '--control',
      control,
      'add',
      'unit',
      'alert',
      'id=OVERTEMP_ERROR',
      'vars={"temperature_c":97,"threshold_c":95}',
    ]);
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain('vars={"temperature_c":97,"threshold_c":95}');
    const listed = await runCli(['faults', '--control', control, 'list']);
    expect(listed.stdout).not.toContain('[object Object]');
    expect(listed.stdout).toContain(`alert id=${ALERT_IDS.OVERTEMP_ERROR} vars={"temperature_c":97,"threshold_c":95}`);
    expect((await runCli(['faults', '--control', control, 'clear'])).code).toBe(0);

    const bad = await runCli(['faults', '--control', control, 'add', 'udp:lidar', 'drop', 'rate=2']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('/action/rate');

    expect((await runCli(['faults', '--control', control, 'add', 'unit', 'link_down'])).code).toBe(0);
    expect(
      ((await (await fetch(`${unit.baseUrl}/api/v1/system/network`)).json()) as { carrier: boolean }).carrier,
    ).toBe(false);
    const clear = await runCli(['faults', '--control', control, 'clear']);
    expect(clear.stdout).toContain('removed 1 rule');
    expect(
      ((await (await fetch(`${unit.baseUrl}/api/v1/system/network`)).json()) as { carrier: boolean }).carrier,
    ).toBe(true);
  });
});
