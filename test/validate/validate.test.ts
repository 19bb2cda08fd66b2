/**
 * `lidar-sensor validate` as users run it: real CLI processes from dist/ against simulated units of
 * two products and profiles and a replayed recording (all checks pass), then against units whose
 * fault plane injects each fault class the validator claims to detect (the named check fails).
 */
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RECORDINGS } from '../helpers/recordings.js';
import { CLI_PATH, type CliProcess, freePort, startCli } from '../helpers/cli-process.js';
import { waitFor } from '../helpers/poll.js';
import { exampleZoneSet } from '../../src/validate/zone-checks.js';

const running: CliProcess[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((p) => p.kill()));
});

async function unit(args: string[] = []): Promise<CliProcess & { control: string }> {
  const controlPort = await freePort();
  const cli = await startCli({ args: ['--control', `127.0.0.1:${controlPort}`, ...args] });
  running.push(cli);
  return Object.assign(cli, { control: `http://127.0.0.1:${controlPort}` });
}

interface Outcome {
  code: number | null;
  stdout: string;
  report: {
    checks: { id: string; title: string; status: string; detail: string }[];
    summary: { pass: number; fail: number; skip: number };
  };
}

async function validate(baseUrl: string, ...flags: string[]): Promise<Outcome> {
  const out = join(mkdtempSync(join(tmpdir(), 'validate-')), 'report.json');
  const child = spawn(process.execPath, [CLI_PATH, 'validate', baseUrl, '--json', out, ...flags], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stdout += d.toString()));
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  const report =
    code === 2 ? { checks: [], summary: { pass: 0, fail: 0, skip: 0 } } : JSON.parse(readFileSync(out, 'utf8'));
  return { code, stdout, report };
}

const failed = (o: Outcome) => o.report.checks.filter((c) => c.status === 'FAIL').map((c) => c.id);

async function addFault(control: string, rule: object): Promise<void> {
  const response = await fetch(`${control}/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(rule),
  });
  expect(response.status).toBe(201);
}

describe('lidar-sensor validate on healthy units', () => {
  it('passes read-only on an OS-1-128 and writes nothing', async () => {
    const cli = await unit();
    const before = (await (await fetch(`${cli.baseUrl}/api/v1/sensor/metadata/sensor_info`)).json()) as {
      initialization_id: number;
    };
    const junit = join(mkdtempSync(join(tmpdir(), 'validate-')), 'report.xml');
    const outcome = await validate(cli.baseUrl, '--junit', junit);
    expect(failed(outcome), outcome.stdout).toEqual([]);
    expect(outcome.code).toBe(0);
    expect(outcome.report.summary.pass).toBeGreaterThan(150);
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toContain(`tests="${outcome.report.checks.length}" failures="0"`);
    expect(xml.match(/<testcase /g)).toHaveLength(outcome.report.checks.length);
    expect(outcome.stdout).toMatch(/^PASS get\.config\.schema /m);
    const after = (await (await fetch(`${cli.baseUrl}/api/v1/sensor/metadata/sensor_info`)).json()) as {
      initialization_id: number;
    };
    expect(after.initialization_id).toBe(before.initialization_id);
  });

  it.each([
    ['OS-1-128', 'RNG19_RFL8_SIG16_NIR16'],
    ['OS-0-32', 'FUSA_RNG15_RFL8_NIR8_DUAL'],
    ['OS-2-64', 'RNG15_RFL8_NIR8'],
  ])('passes with --allow-changes on an %s sending %s, and restores the unit', async (product, profile) => {
    const cli = await unit(['--product', product]);
    await fetch(`${cli.baseUrl}/api/v1/sensor/config`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ udp_profile_lidar: profile }),
    });
    await fetch(`${cli.baseUrl}/api/v1/user/data?policy=keep_on_config_delete`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: '"mine"',
    });
    const config = await (await fetch(`${cli.baseUrl}/api/v1/sensor/config`)).json();
    const outcome = await validate(cli.baseUrl, '--allow-changes', '--udp-timeout', '2');
    expect(failed(outcome), outcome.stdout).toEqual([]);
    expect(outcome.code).toBe(0);
    expect(outcome.report.checks.length).toBeGreaterThanOrEqual(150);
    for (const id of ['udp.lidar.no-gaps', 'write.put.reinit', 'write.post.format-follows', 'udp.lidar.clock'])
      expect(outcome.report.checks.find((c) => c.id === id)?.status, id).toBe('PASS');
    expect(outcome.stdout).not.toMatch(/replay/);
    expect(await (await fetch(`${cli.baseUrl}/api/v1/sensor/config`)).json()).toEqual(config);
    expect(await (await fetch(`${cli.baseUrl}/api/v1/user/data?include_metadata=true`)).json()).toEqual({
      value: 'mine',
      policy: 'keep_on_config_delete',
    });
  });

  it("checks Zone Monitor: 404 below firmware 3.2; on 3.2 live_ids, the zips, the active set against the SDK's schema, the configuration, a refusal, a staged set read back and a zone packet every frame", async () => {
    const old = await validate((await unit(['--product', 'OS-1-32'])).baseUrl);
    expect(old.report.checks.find((c) => c.id === 'zone.absent')?.status).toBe('PASS');
    const cli = await unit(['--product', 'OS-1-32', '--firmware-version', '3.2']);
    const zones = `${cli.baseUrl}/api/v1/zone_monitor`;
    const staged = await fetch(`${zones}/staged/zip`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: Buffer.from(exampleZoneSet()),
    });
    expect(staged.status).toBe(204);
    expect((await fetch(`${zones}/apply`, { method: 'POST' })).status).toBe(204);
    const config = await (await fetch(`${cli.baseUrl}/api/v1/sensor/config`)).json();
    const stagedBefore = Buffer.from(await (await fetch(`${zones}/staged/zip`)).arrayBuffer());
    const outcome = await validate(cli.baseUrl, '--allow-changes', '--udp-timeout', '2');
    expect(failed(outcome), outcome.stdout).toEqual([]);
    expect(outcome.report.checks.find((c) => c.id === 'udp.zone-every-frame')?.status).toBe('PASS');
    expect(await (await fetch(`${cli.baseUrl}/api/v1/sensor/config`)).json()).toEqual(config);
    const zone = outcome.report.checks.filter((c) => c.id.startsWith('zone.'));
    expect(zone.map((c) => [c.id, c.status])).toEqual([
      ['zone.absent', 'SKIP'],
      ['zone.live-ids', 'PASS'],
      ['zone.active-zip', 'PASS'],
      ['zone.staged-zip', 'PASS'],
      ['zone.active-schema', 'PASS'],
      ['zone.config', 'PASS'],
      ['zone.refuse-corrupt', 'PASS'],
      ['zone.stage', 'PASS'],
    ]);
    // What was staged before is staged again.
    expect(Buffer.from(await (await fetch(`${zones}/staged/zip`)).arrayBuffer())).toEqual(stagedBefore);
  });

  it('decodes and checks firmware 3.2 formats: ACCEL32_GYRO32_NMEA with a GNSS sentence, the FUSA header on a 3.2 profile, frames starting at an azimuth offset', async () => {
    const cli = await unit(['--product', 'OS-1-32', '--firmware-version', '3.2']);
    const set = await fetch(`${cli.baseUrl}/api/v1/sensor/config`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        udp_profile_lidar: 'RNG19_RFL8_SIG16_NIR16_ZONE16',
        header_type: 'FUSA',
        udp_profile_imu: 'ACCEL32_GYRO32_NMEA',
        imu_packets_per_frame: 4,
        multipurpose_io_mode: 'INPUT_NMEA_UART',
        // Frames start at 90°: the sequence checks count each frame from its own first packet.
        lidar_frame_azimuth_offset: 90_000,
      }),
    });
    expect(set.status).toBe(204);
    const outcome = await validate(cli.baseUrl, '--allow-changes', '--udp-timeout', '2');
    expect(failed(outcome), outcome.stdout).toEqual([]);
    const imu = outcome.report.checks.filter((c) => c.id.startsWith('udp.imu.'));
    expect(imu.map((c) => [c.id, c.status])).toEqual(
      [
        'received',
        'size',
        'rate',
        'header',
        'measurement-ids',
        'frames',
        'timestamps',
        'ranges',
        'gravity',
        'nmea',
      ].map((id) => [`udp.imu.${id}`, 'PASS']),
    );
    expect(imu.find((c) => c.id === 'udp.imu.nmea')?.detail).toMatch(/^\d+ sentences$/);
    for (const id of ['udp.lidar.no-gaps', 'udp.lidar.in-order', 'udp.lidar.frame-id'])
      expect(outcome.report.checks.find((c) => c.id === id)?.status, id).toBe('PASS');
  });

  // Every sample recording (test/fixtures/recordings), replayed read-only (a replay fixes what was measured, so the
  // write paths that change the lidar mode are refused by design: docs/replay.md). The LEGACY one once failed on
  // two real deviations of the unit: the document's udp_profile_lidar enum lacked LEGACY, and firmware fw named
  // this build while sensor_info.image_rev named the recording's firmware.
  it.each([
    ['OS-2-32-U0_v2.0.0_1024x10.pcap', [], 'LEGACY'],
    ['OS-1-128_767798045_1024x10_20230712_120049.pcap', [], 'FUSA_RNG15_RFL8_NIR8_DUAL'],
    ['crc_test.pcap', [], 'RNG15_RFL8_NIR8'],
    ['sim_OS-1-32_v3.2.0_512x10_fusa_zone16.pcap', [], 'RNG15_RFL8_NIR8_ZONE16'],
    ['same_ports_nonlegacy.pcap', ['--metadata', join(RECORDINGS, 'same_ports_nonlegacy.1.json')], undefined],
    ['same_ports_nonlegacy.pcap', ['--metadata', join(RECORDINGS, 'same_ports_nonlegacy.2.json')], undefined],
  ])('passes read-only on a unit replaying %s %s', async (recording, extra, profile) => {
    const cli = await unit(['--replay', join(RECORDINGS, recording), ...extra, '--replay-loop']);
    const outcome = await validate(cli.baseUrl);
    expect(failed(outcome), outcome.stdout).toEqual([]);
    expect(outcome.code).toBe(0);
    expect(outcome.report.summary.pass).toBeGreaterThan(150);
    expect(outcome.stdout).toMatch(/^PASS get\.config\.schema /m);
    expect(outcome.stdout).toMatch(/^PASS metadata\.firmware /m);
    const info = (await (await fetch(`${cli.baseUrl}/api/v1/sensor/metadata/sensor_info`)).json()) as {
      image_rev: string;
    };
    const firmware = (await (await fetch(`${cli.baseUrl}/api/v1/system/firmware`)).json()) as { fw: string };
    expect(firmware.fw).toBe(info.image_rev);
    if (profile) {
      const config = (await (await fetch(`${cli.baseUrl}/api/v1/sensor/config`)).json()) as Record<string, unknown>;
      expect(config.udp_profile_lidar).toBe(profile);
    }
  });

  // Every sample with --allow-changes (docs/validate.md, "Against a replaying unit"): the unit says it replays (its
  // OpenAPI document's info), so what a replay cannot meet (a new initialization_id, a lidar_mode change, the
  // recording's timestamps, alert flags and gaps, a stream the recording lacks) SKIPs naming the recording, and
  // what it can meet (a write it takes, the packet formats, the restore) is checked and passes.
  it.each([
    ['OS-2-32-U0_v2.0.0_1024x10.pcap', [], 'udp.imu.received'],
    ['OS-1-128_767798045_1024x10_20230712_120049.pcap', [], 'udp.lidar.alert-flags'],
    ['crc_test.pcap', [], 'udp.lidar.no-gaps'],
    ['sim_OS-1-32_v3.2.0_512x10_zone16.pcap', [], 'udp.imu.timestamps'],
    ['sim_OS-1-32_v3.2.0_512x10_win8_accel32.pcap', [], 'udp.imu.rate'],
    [
      'same_ports_nonlegacy.pcap',
      ['--metadata', join(RECORDINGS, 'same_ports_nonlegacy.1.json')],
      'udp.lidar.packet-rate',
    ],
    ['same_ports_nonlegacy.pcap', ['--metadata', join(RECORDINGS, 'same_ports_nonlegacy.2.json')], 'udp.lidar.clock'],
    ['imu_zm_no_lidar.pcap', ['--metadata', join(RECORDINGS, 'imu_zm_no_lidar_0.json')], 'udp.lidar.received'],
  ])(
    'checks a unit replaying %s %s with changes: what a replay cannot meet SKIPs saying why (%s), nothing fails',
    async (recording, extra, skipped) => {
      const cli = await unit(['--replay', join(RECORDINGS, recording), ...extra, '--replay-loop']);
      const outcome = await validate(cli.baseUrl, '--allow-changes', '--udp-timeout', '2');
      expect(failed(outcome), outcome.stdout).toEqual([]);
      expect(outcome.code).toBe(0);
      expect(outcome.stdout).toContain(`the unit replays ${recording} (its OpenAPI document says so)`);
      const check = (id: string) => outcome.report.checks.find((c) => c.id === id);
      for (const id of ['write.put.reinit', 'write.post.reinit', 'write.post.format-follows', skipped]) {
        expect(check(id)?.status, `${id}\n${outcome.stdout}`).toBe('SKIP');
        expect(check(id)?.detail).toMatch(new RegExp(`^replaying ${recording.replace('.', '\\.')}: `));
      }
      for (const id of [
        'write.put.accepted',
        'write.post.accepted',
        'write.post.all-applied',
        'write.post.time-follows',
        'restore',
      ])
        expect(check(id)?.status, `${id}\n${outcome.stdout}`).toBe('PASS');
      expect(check('write.post.accepted')?.title).not.toContain('lidar_mode');
    },
  );

  // The simulator's FUSA sample (test/fixtures/recordings/README.md): the validator reads the replayed packets with
  // the header the unit reports (header_type FUSA), lidar, IMU and zone packets alike.
  it('decodes the data plane of a unit replaying a FUSA recording: u32 frame ids, no CRC, FUSA IMU and zone packets', async () => {
    const cli = await unit([
      '--replay',
      join(RECORDINGS, 'sim_OS-1-32_v3.2.0_512x10_fusa_zone16.pcap'),
      '--replay-loop',
    ]);
    const config = (await (await fetch(`${cli.baseUrl}/api/v1/sensor/config`)).json()) as Record<string, unknown>;
    expect(config.header_type).toBe('FUSA');
    const outcome = await validate(cli.baseUrl, '--allow-changes', '--udp-timeout', '2');
    const ids = ['lidar.init-id', 'lidar.footer', 'lidar.frame-id', 'lidar.no-gaps', 'imu.header', 'imu.frames'];
    for (const id of [...ids.map((i) => `udp.${i}`), 'udp.zone-every-frame'])
      expect(outcome.report.checks.find((c) => c.id === id)?.status, `${id}\n${outcome.stdout}`).toBe('PASS');
    expect(failed(outcome), outcome.stdout).toEqual([]);
  });

  it('documents LEGACY only on a unit that replays a LEGACY recording', async () => {
    const enumOf = async (baseUrl: string) => {
      const doc = (await (await fetch(`${baseUrl}/api/v1/openapi.json`)).json()) as {
        components: { schemas: { Configuration: { properties: { udp_profile_lidar: { enum: string[] } } } } };
      };
      return doc.components.schemas.Configuration.properties.udp_profile_lidar.enum;
    };
    const replaying = await unit(['--replay', join(RECORDINGS, 'OS-2-32-U0_v2.0.0_1024x10.pcap'), '--replay-loop']);
    const live = await unit();
    expect(await enumOf(replaying.baseUrl)).toContain('LEGACY');
    expect(await enumOf(live.baseUrl)).not.toContain('LEGACY');
    expect((await enumOf(replaying.baseUrl)).filter((p) => p !== 'LEGACY')).toEqual(await enumOf(live.baseUrl));
  });

  it('exits 2 on an unreachable unit and on bad arguments', async () => {
    const port = await freePort();
    expect((await validate(`http://127.0.0.1:${port}`)).code).toBe(2);
    expect((await validate('not a url')).code).toBe(2);
    expect((await validate('http://127.0.0.1:1', '--udp-timeout', 'soon')).code).toBe(2);
  });
});

describe('lidar-sensor validate restores the unit when interrupted', () => {
  it('SIGINT in the middle of --allow-changes puts the configuration and user data back, exit 130', async () => {
    const cli = await unit();
    const config = await (await fetch(`${cli.baseUrl}/api/v1/sensor/config`)).json();
    const child = spawn(process.execPath, [CLI_PATH, 'validate', cli.baseUrl, '--allow-changes'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    const exited = new Promise<number | null>((r) => child.once('exit', r));
    await new Promise<void>((resolveWhen) => {
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
        // After the accepted POST the unit's lidar_mode differs from the saved one.
        if (stdout.includes('write.post.accepted')) resolveWhen();
      });
    });
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(await (await fetch(`${cli.baseUrl}/api/v1/sensor/config`)).json()).toEqual(config);
    expect(await (await fetch(`${cli.baseUrl}/api/v1/user/data`)).json()).toBe('');
  });
});

describe('lidar-sensor validate names each fault class the fault plane injects', () => {
  it.each([
    [
      'an endpoint answering 500',
      { selector: { plane: 'http', path: '/api/v1/sensor/telemetry' }, action: { type: 'status', status: 500 } },
      [],
      'get.telemetry.status',
    ],
    [
      'a cut-short body',
      { selector: { plane: 'http', path: '/api/v1/system/firmware' }, action: { type: 'truncate', bytes: 5 } },
      [],
      'get.firmware.status',
    ],
    [
      'a stalled endpoint',
      { selector: { plane: 'http', path: '/api/v1/time/ptp' }, action: { type: 'latency', ms: 4000 } },
      ['--http-timeout', '1'],
      'get.time-ptp.status',
    ],
    [
      'lidar packet loss',
      { selector: { plane: 'udp', stream: 'lidar' }, action: { type: 'drop', rate: 0.05 } },
      ['--allow-changes'],
      'udp.lidar.no-gaps',
    ],
    [
      'duplicated lidar packets',
      { selector: { plane: 'udp', stream: 'lidar' }, action: { type: 'duplicate', rate: 0.05 } },
      ['--allow-changes'],
      'udp.lidar.no-duplicates',
    ],
    [
      'reordered lidar packets',
      { selector: { plane: 'udp', stream: 'lidar' }, action: { type: 'reorder', rate: 0.05 } },
      ['--allow-changes'],
      'udp.lidar.in-order',
    ],
    [
      'corrupt lidar packets',
      { selector: { plane: 'udp', stream: 'lidar' }, action: { type: 'corrupt', rate: 0.05 } },
      ['--allow-changes'],
      'udp.lidar.crc',
    ],
    [
      'truncated lidar packets',
      { selector: { plane: 'udp', stream: 'lidar' }, action: { type: 'truncate', bytes: 1000, rate: 0.05 } },
      ['--allow-changes'],
      'udp.lidar.size',
    ],
    [
      'corrupt IMU packets',
      { selector: { plane: 'udp', stream: 'imu' }, action: { type: 'corrupt', rate: 0.2 } },
      ['--allow-changes'],
      'udp.imu.gravity',
    ],
    [
      'a stopped IMU stream',
      { selector: { plane: 'udp', stream: 'imu' }, action: { type: 'stop' } },
      ['--allow-changes'],
      'udp.imu.received',
    ],
    [
      'a wrong lidar frame rate',
      { selector: { plane: 'udp', stream: 'lidar' }, action: { type: 'frame_rate', hz: 8 } },
      ['--allow-changes'],
      'udp.lidar.frame-rate',
    ],
  ])('%s', async (_name, rule, flags, check) => {
    const cli = await unit();
    await addFault(cli.control, rule);
    const outcome = await validate(cli.baseUrl, '--udp-timeout', '2', ...flags);
    expect(outcome.code, outcome.stdout).toBe(1);
    expect(failed(outcome)).toContain(check);
    expect(outcome.stdout).toMatch(new RegExp(`^FAIL ${check.replace(/\./g, '\\.')} .+ — .+`, 'm'));
    if (check === 'udp.lidar.frame-rate') expect(outcome.stdout).toMatch(/frame-rate .+ — 8\.\d\d Hz, lidar_mode says/);
  });
});

interface AlertsAnswer {
  log: { cursor: number }[];
  next_cursor: number;
}

/**
 * A unit whose alert answers are rewritten on the way: `next_cursor` shifted by `shift` on the answers `affects`
 * picks (by their query). Everything else passes through unchanged.
 */
function cursorOffProxy(target: string, shift: number, affects: (query: URLSearchParams) => boolean) {
  return alertsRewritingProxy(target, (alerts, query) =>
    affects(query) ? { ...alerts, next_cursor: alerts.next_cursor + shift } : alerts,
  );
}

/** A unit whose alert answers `rewrite` changes on the way. Everything else passes through unchanged. */
async function alertsRewritingProxy(
  target: string,
  rewrite: (alerts: AlertsAnswer, query: URLSearchParams) => AlertsAnswer,
) {
  const server: Server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', target);
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const upstream = await fetch(url, {
      method: request.method,
      headers: Object.fromEntries(
        Object.entries(request.headers).filter(([k]) => k !== 'host' && k !== 'connection'),
      ) as Record<string, string>,
      body: chunks.length ? Buffer.concat(chunks) : undefined,
    });
    let body = Buffer.from(await upstream.arrayBuffer());
    if (url.pathname === '/api/v1/sensor/alerts' && upstream.status === 200) {
      body = Buffer.from(JSON.stringify(rewrite(JSON.parse(body.toString()) as AlertsAnswer, url.searchParams)));
    }
    const headers = Object.fromEntries(
      [...upstream.headers].filter(
        ([k]) => !['content-length', 'content-encoding', 'transfer-encoding', 'connection', 'keep-alive'].includes(k),
      ),
    );
    response.writeHead(upstream.status, { ...headers, 'content-length': body.length }).end(body);
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(resolve)) };
}

describe('lidar-sensor validate checks next_cursor against the log it returns', () => {
  it.each([
    ['one ahead of the log, without a query', 1, (q: URLSearchParams) => !q.has('cursor')],
    ['one behind the log, only with a cursor query', -1, (q: URLSearchParams) => q.has('cursor')],
  ])('fails a unit whose next_cursor is %s, naming the query', async (_name, shift, affects) => {
    const cli = await unit();
    // Log entries to hold the cursor against: an alert raised and cleared by the fault plane.
    await addFault(cli.control, {
      selector: { plane: 'unit' },
      action: { type: 'alert', id: 'OVERTEMP_WARNING' },
      lifetime: { duration_ms: 200 },
    });
    await waitFor(
      async () => {
        const alerts = (await (await fetch(`${cli.baseUrl}/api/v1/sensor/alerts`)).json()) as { log: unknown[] };
        return alerts.log.length >= 2;
      },
      10_000,
      'the alert raised and cleared',
    );
    const healthy = await validate(cli.baseUrl);
    expect(failed(healthy), healthy.stdout).toEqual([]);
    const proxy = await cursorOffProxy(cli.baseUrl, shift, affects);
    try {
      const outcome = await validate(proxy.url);
      expect(outcome.code, outcome.stdout).toBe(1);
      expect(failed(outcome)).toContain('alerts.next-cursor-log');
      expect(outcome.stdout).toMatch(
        /^FAIL alerts\.next-cursor-log .+ — GET \/api\/v1\/sensor\/alerts\S* ?: next_cursor \d+/m,
      );
    } finally {
      await proxy.close();
    }
  });
});

describe('lidar-sensor validate checks the cursor rules round the 2^32 wrap', () => {
  it('passes a unit whose log holds entries on both sides of 2^32, and fails one that compares cursors as plain numbers', async () => {
    const cli = await unit(['--alert-cursor-start', '4294967293']);
    // Six real entries: three alerts raised and cleared by the fault plane, cursors 4294967293 .. 2.
    for (const id of ['OVERTEMP_WARNING', 'ETHERNET_LINK_BAD', 'OVERTEMP_WARNING']) {
      const before = (await (await fetch(`${cli.baseUrl}/api/v1/sensor/alerts`)).json()) as AlertsAnswer;
      await addFault(cli.control, {
        selector: { plane: 'unit' },
        action: { type: 'alert', id },
        lifetime: { duration_ms: 100 },
      });
      await waitFor(
        async () => {
          const alerts = (await (await fetch(`${cli.baseUrl}/api/v1/sensor/alerts`)).json()) as AlertsAnswer;
          return alerts.log.length >= before.log.length + 2;
        },
        10_000,
        `${id} raised and cleared`,
      );
    }
    const alerts = (await (await fetch(`${cli.baseUrl}/api/v1/sensor/alerts`)).json()) as AlertsAnswer;
    expect([alerts.log.map((e) => e.cursor), alerts.next_cursor]).toEqual([
      [4294967293, 4294967294, 4294967295, 0, 1, 2],
      3,
    ]);
    const healthy = await validate(cli.baseUrl);
    expect(failed(healthy), healthy.stdout).toEqual([]);
    expect(healthy.stdout).toMatch(/^PASS alerts\.cursor-behind .+cursors 2 back to 4294967293 with next_cursor 3/m);

    // The defect of issue 58: "cursor > next_cursor → the whole log", with cursors compared as plain numbers.
    const plainNumbers = await alertsRewritingProxy(cli.baseUrl, (answer, query) => {
      const cursor = query.has('cursor') ? Number(query.get('cursor')) : undefined;
      if (cursor === undefined || cursor <= answer.next_cursor) return answer;
      return { ...answer, log: alerts.log };
    });
    try {
      const outcome = await validate(plainNumbers.url);
      expect(outcome.code, outcome.stdout).toBe(1);
      expect(failed(outcome)).toEqual(['alerts.cursor-behind']);
      expect(outcome.stdout).toMatch(/^FAIL alerts\.cursor-behind .+cursor=4294967295 \(4 before 3\)/m);
    } finally {
      await plainNumbers.close();
    }
  });
});
