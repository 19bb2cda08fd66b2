/**
 * `--allow-changes`, the write paths: refusals change nothing (one check per parameter), a POST with
 * one bad member is refused whole, accepted changes reinitialize with a new initialization_id and
 * are read back everywhere they show, user data and its policy, `udp_dest` `@auto`.
 */
import { type CheckRun, expectThat, show, SkipCheck } from './check-run.js';
import { problemShape } from './http-checks.js';
import { REFUSED_VALUES } from './spec-rules.js';
import type { UnitClient } from './unit-client.js';
import { waitUntilRunning } from './unit-state.js';

type Json = Record<string, unknown>;

const USER_DATA_LIMIT = 131072;

/** The current initialization_id (fresh). */
async function initId(client: UnitClient): Promise<number> {
  return (await client.fresh('/api/v1/sensor/metadata/sensor_info')).initialization_id as number;
}

/** A change that must be accepted with 204; waits for the reinitialization to end. */
async function accept(client: UnitClient, method: 'POST' | 'PUT', path: string, body: unknown): Promise<void> {
  const answer = await client.request(method, path, { body });
  expectThat(
    answer.status === 204,
    `${method} ${path} ${show(body, 60)} answered ${answer.status}: ${answer.text.slice(0, 120)}`,
  );
  await waitUntilRunning(client);
}

export async function writeChecks(run: CheckRun, client: UnitClient, original: Json): Promise<void> {
  await refusalChecks(run, client, original);
  await acceptedChangeChecks(run, client, original);
  await userDataChecks(run, client);
}

async function refusalChecks(run: CheckRun, client: UnitClient, original: Json): Promise<void> {
  const before = await initId(client);
  for (const [name, value] of Object.entries(REFUSED_VALUES)) {
    await run.check(
      `write.refuse.${name}`,
      `PUT /api/v1/sensor/config/${name} ${show(value, 30)} is refused with 400 and changes nothing`,
      async () => {
        const answer = await client.request('PUT', `/api/v1/sensor/config/${name}`, { body: value });
        expectThat(answer.status === 400, `answered ${answer.status}: ${answer.text.slice(0, 120)}`);
        const now = (await client.request('GET', `/api/v1/sensor/config/${name}`)).json;
        expectThat(JSON.stringify(now) === JSON.stringify(original[name]), `value changed to ${show(now)}`);
      },
    );
  }
  await run.check(
    'write.refuse.problem-body',
    'a refused PUT answers a problem body naming the parameter',
    async () => {
      const answer = await client.request('PUT', '/api/v1/sensor/config/lidar_mode', { body: 'sideways' });
      const problem = problemShape(answer);
      expectThat(problem === undefined, problem ?? '');
      expectThat(answer.text.includes('lidar_mode'), `body does not name lidar_mode: ${answer.text.slice(0, 120)}`);
    },
  );
  await run.check(
    'write.refuse.unknown-parameter',
    'PUT /api/v1/sensor/config/<unknown name> answers 404',
    async () => {
      const answer = await client.request('PUT', '/api/v1/sensor/config/no_such_parameter', { body: 1 });
      expectThat(answer.status === 404, `answered ${answer.status}`);
    },
  );
  await run.check('write.refuse.auto-by-put', 'PUT udp_dest "@auto" is refused (only POST supports it)', async () => {
    const answer = await client.request('PUT', '/api/v1/sensor/config/udp_dest', { body: '@auto' });
    expectThat(answer.status === 400, `answered ${answer.status}`);
  });
  const otherFrequency = original.sync_pulse_out_frequency === 2 ? 3 : 2;
  const posts: [string, string, unknown, string | undefined][] = [
    [
      'atomic-bad-member',
      'a POST with one valid and one out-of-range member is refused whole (spec rule 5)',
      { sync_pulse_out_frequency: otherFrequency, udp_port_lidar: 70000 },
      undefined,
    ],
    [
      'atomic-unknown-name',
      'a POST with a valid member and an unknown parameter name applies nothing',
      { sync_pulse_out_frequency: otherFrequency, no_such_parameter: 1 },
      undefined,
    ],
    [
      'name-case',
      'a POST with a parameter name in the wrong letter case is refused (spec rule 1)',
      { LIDAR_MODE: '512x10' },
      undefined,
    ],
    [
      'keyword-case',
      'a POST with a keyword in the wrong letter case is refused (spec rule 1)',
      { operating_mode: 'Standby' },
      undefined,
    ],
    ['not-json', 'a POST whose body is not JSON is refused with 400', undefined, '{"lidar_mode": '],
    ['not-object', 'a POST whose body is a JSON array is refused with 400', [1, 2], undefined],
    [
      'multiplier-window',
      'a POST of signal_multiplier 3 with a 360° azimuth_window is refused (120° maximum)',
      { signal_multiplier: 3, azimuth_window: [0, 360000] },
      undefined,
    ],
  ];
  for (const [id, title, body, raw] of posts)
    await run.check(`write.post.${id}`, title, async () => {
      const answer = await client.request(
        'POST',
        '/api/v1/sensor/config',
        raw === undefined ? { body } : { rawBody: raw, headers: { 'content-type': 'application/json' } },
      );
      expectThat(
        answer.status >= 400 && answer.status < 500 && answer.status !== 413,
        `answered ${answer.status}: ${answer.text.slice(0, 120)}`,
      );
      if (id === 'not-json' || id === 'not-object' || id === 'atomic-bad-member')
        expectThat(answer.status === 400, `answered ${answer.status}`);
      const now = await client.fresh('/api/v1/sensor/config');
      const changed = Object.keys(original).filter((k) => JSON.stringify(now[k]) !== JSON.stringify(original[k]));
      expectThat(changed.length === 0, `changed: ${changed.join(', ')}`);
    });
  await run.check(
    'write.refuse.no-reinit',
    'refused writes did not reinitialize the unit (same initialization_id)',
    async () => {
      const after = await initId(client);
      expectThat(after === before, `initialization_id ${before} → ${after}`);
    },
  );
}

async function acceptedChangeChecks(run: CheckRun, client: UnitClient, original: Json): Promise<void> {
  const angle = original.sync_pulse_out_angle === 180 ? 90 : 180;
  let before = await initId(client);
  const putOk = await run.check(
    'write.put.accepted',
    `PUT /api/v1/sensor/config/sync_pulse_out_angle ${angle} answers 204`,
    () => accept(client, 'PUT', '/api/v1/sensor/config/sync_pulse_out_angle', angle),
  );
  await run.check(
    'write.put.reinit',
    'an accepted PUT reinitializes: new initialization_id (spec rule 4)',
    async () => {
      if (!putOk) throw new SkipCheck('the PUT was not accepted');
      const after = await initId(client);
      expectThat(after !== before, `initialization_id still ${after}`);
      return `${before} → ${after}`;
    },
  );
  await run.check(
    'write.put.active',
    'the new value is active: GET config/<name> and time/sensor sync_pulse_out.angle_deg',
    async () => {
      if (!putOk) throw new SkipCheck('the PUT was not accepted');
      expectThat(
        (await client.request('GET', '/api/v1/sensor/config/sync_pulse_out_angle')).json === angle,
        'config not changed',
      );
      const sensor = await client.fresh('/api/v1/time/sensor');
      const shown = ((sensor.multipurpose_io as Json)?.sync_pulse_out as Json)?.angle_deg;
      expectThat(shown === angle, `time/sensor shows ${show(shown)}`);
    },
  );
  await run.check(
    'write.staged',
    'legacy staged/active: set_config_param stages, reinitialize activates, save_config_params persists',
    async () => {
      const set = await client.request(
        'GET',
        `/api/v1/sensor/cmd/set_config_param?args=sync_pulse_out_angle+${original.sync_pulse_out_angle}`,
      );
      if (set.status === 404) throw new SkipCheck('legacy command endpoints absent');
      expectThat(set.status === 200, `set_config_param answered ${set.status}`);
      const staged = await client.request('GET', '/api/v1/sensor/cmd/get_config_param?args=staged');
      expectThat(
        (staged.json as Json)?.sync_pulse_out_angle === original.sync_pulse_out_angle,
        `staged shows ${show((staged.json as Json)?.sync_pulse_out_angle)}`,
      );
      expectThat(
        (await client.request('GET', '/api/v1/sensor/config/sync_pulse_out_angle')).json === angle,
        'staging changed the active value',
      );
      const reinit = await client.request('GET', '/api/v1/sensor/cmd/reinitialize');
      expectThat(reinit.status === 200, `reinitialize answered ${reinit.status}`);
      await waitUntilRunning(client);
      expectThat(
        (await client.request('GET', '/api/v1/sensor/config/sync_pulse_out_angle')).json ===
          original.sync_pulse_out_angle,
        'reinitialize did not activate the staged value',
      );
      const save = await client.request('GET', '/api/v1/sensor/cmd/save_config_params');
      expectThat(save.status === 200, `save_config_params answered ${save.status}`);
    },
  );
  before = await initId(client);
  const other = {
    lidar_mode: original.lidar_mode === '512x10' ? '1024x10' : '512x10',
    nmea_leap_seconds: (original.nmea_leap_seconds as number) + 1,
  };
  const postOk = await run.check('write.post.accepted', `POST /api/v1/sensor/config ${show(other)} answers 204`, () =>
    accept(client, 'POST', '/api/v1/sensor/config', other),
  );
  const whenPosted = (id: string, title: string, body: () => unknown) =>
    run.check(id, title, async () => {
      if (!postOk) throw new SkipCheck('the POST was not accepted');
      return body();
    });
  await whenPosted('write.post.all-applied', 'every member of an accepted POST is applied', async () => {
    const now = await client.fresh('/api/v1/sensor/config');
    expectThat(
      now.lidar_mode === other.lidar_mode && now.nmea_leap_seconds === other.nmea_leap_seconds,
      `${now.lidar_mode}, ${now.nmea_leap_seconds}`,
    );
  });
  await whenPosted('write.post.reinit', 'an accepted POST reinitializes: new initialization_id', async () =>
    expectThat((await initId(client)) !== before, 'initialization_id unchanged'),
  );
  await whenPosted(
    'write.post.format-follows',
    'lidar_data_format follows the new lidar_mode (columns_per_frame, column_window)',
    async () => {
      const format = await client.fresh('/api/v1/sensor/metadata/lidar_data_format');
      const columns = Number(other.lidar_mode.split('x')[0]);
      expectThat(format.columns_per_frame === columns, `columns_per_frame ${format.columns_per_frame}`);
      expectThat(
        JSON.stringify(format.column_window) === JSON.stringify([0, columns - 1]) ||
          original.azimuth_window?.toString() !== '0,360000',
        `column_window ${show(format.column_window)}`,
      );
    },
  );
  await whenPosted(
    'write.post.metadata-follows',
    'GET /api/v1/sensor/metadata config_params shows the new values',
    async () => {
      const metadata = await client.fresh('/api/v1/sensor/metadata');
      expectThat(
        (metadata.config_params as Json).lidar_mode === other.lidar_mode,
        show((metadata.config_params as Json).lidar_mode),
      );
    },
  );
  await whenPosted('write.post.time-follows', 'time/sensor nmea.leap_seconds shows the new value', async () => {
    const sensor = await client.fresh('/api/v1/time/sensor');
    const leap = ((sensor.multipurpose_io as Json)?.nmea as Json)?.leap_seconds;
    expectThat(leap === other.nmea_leap_seconds, show(leap));
  });
  const windowOk = await run.check('write.window.accepted', 'POST azimuth_window [90000, 270000] answers 204', () =>
    accept(client, 'POST', '/api/v1/sensor/config', { azimuth_window: [90000, 270000] }),
  );
  await run.check(
    'write.window.columns',
    'column_window reflects the azimuth window (about half the frame)',
    async () => {
      if (!windowOk) throw new SkipCheck('the window was not accepted');
      const format = await client.fresh('/api/v1/sensor/metadata/lidar_data_format');
      const [first, last] = format.column_window as number[];
      const width = format.columns_per_frame as number;
      const share = (last - first + 1) / width;
      expectThat(share > 0.45 && share < 0.55, `column_window ${show(format.column_window)} of ${width} columns`);
    },
  );
  const standbyOk = await run.check('write.standby.accepted', 'PUT operating_mode "STANDBY" answers 204', () =>
    accept(client, 'PUT', '/api/v1/sensor/config/operating_mode', 'STANDBY'),
  );
  await run.check(
    'write.standby.status',
    'in STANDBY sensor_info.status is STANDBY and lidar_data_format is refused (error 2)',
    async () => {
      if (!standbyOk) throw new SkipCheck('STANDBY was not accepted');
      const info = await client.fresh('/api/v1/sensor/metadata/sensor_info');
      expectThat(info.status !== 'RUNNING', `status ${show(info.status)}`);
      const format = await client.request('GET', '/api/v1/sensor/metadata/lidar_data_format');
      expectThat(format.status >= 400, `answered ${format.status}`);
      const problem = problemShape(format);
      expectThat(problem === undefined, problem ?? '');
    },
  );
  await run.check(
    'write.normal.accepted',
    'PUT operating_mode "NORMAL" answers 204 and the unit is RUNNING again',
    async () => {
      await accept(client, 'PUT', '/api/v1/sensor/config/operating_mode', 'NORMAL');
      const info = await client.fresh('/api/v1/sensor/metadata/sensor_info');
      expectThat(info.status === 'RUNNING', `status ${show(info.status)}`);
    },
  );
  await run.check(
    'write.auto-dest',
    'POST udp_dest "@auto" sets udp_dest to the address the unit sees the validator at',
    async () => {
      await accept(client, 'POST', '/api/v1/sensor/config', { udp_dest: '@auto' });
      const dest = (await client.request('GET', '/api/v1/sensor/config/udp_dest')).json;
      expectThat(typeof dest === 'string' && /^\d+\.\d+\.\d+\.\d+$/.test(dest), `udp_dest ${show(dest)}`);
      const host = new URL(client.baseUrl).hostname;
      if (/^127\./.test(host)) expectThat(/^127\./.test(String(dest)), `udp_dest ${dest} for a validator on loopback`);
      return `udp_dest ${dest}`;
    },
  );
}

async function userDataChecks(run: CheckRun, client: UnitClient): Promise<void> {
  const text = 'validator ✓ 1';
  const read = async () => client.fresh<{ value: string; policy: string }>('/api/v1/user/data?include_metadata=true');
  await run.check(
    'user-data.put',
    'PUT /api/v1/user/data with a Unicode string answers 204 and reads back',
    async () => {
      const answer = await client.request('PUT', '/api/v1/user/data', { body: text });
      expectThat(answer.status === 204, `answered ${answer.status}`);
      expectThat((await client.request('GET', '/api/v1/user/data')).json === text, 'value not read back');
    },
  );
  await run.check(
    'user-data.policy-keep',
    'PUT ?policy=keep_on_config_delete shows policy keep_on_config_delete',
    async () => {
      const answer = await client.request('PUT', '/api/v1/user/data?policy=keep_on_config_delete', { body: text });
      expectThat(answer.status === 204, `answered ${answer.status}`);
      expectThat((await read()).policy === 'keep_on_config_delete', `policy ${(await read()).policy}`);
    },
  );
  await run.check(
    'user-data.policy-default',
    'PUT without policy sets clear_on_config_delete (the default)',
    async () => {
      const answer = await client.request('PUT', '/api/v1/user/data', { body: text });
      expectThat(answer.status === 204, `answered ${answer.status}`);
      const now = await read();
      expectThat(now.policy === 'clear_on_config_delete', `policy ${now.policy}`);
    },
  );
  const refusals: [string, string, string, { body?: unknown; rawBody?: string }, number[]][] = [
    [
      'bad-policy',
      'a policy other than the two allowed is refused (error 5)',
      '/api/v1/user/data?policy=forever',
      { body: 'x' },
      [400],
    ],
    [
      'too-large',
      `a value over ${USER_DATA_LIMIT} bytes is refused (error 5)`,
      '/api/v1/user/data',
      { body: 'a'.repeat(USER_DATA_LIMIT + 1) },
      [400, 413],
    ],
    [
      'binary',
      'a value holding binary data (NUL) is refused (error 5)',
      '/api/v1/user/data',
      { body: 'a\u0000b' },
      [400],
    ],
    ['not-string', 'a value that is not a JSON string is refused', '/api/v1/user/data', { body: 42 }, [400]],
  ];
  for (const [id, title, path, body, statuses] of refusals)
    await run.check(`user-data.refuse.${id}`, `${title}; the value is unchanged`, async () => {
      const answer = await client.request('PUT', path, body);
      expectThat(statuses.includes(answer.status), `answered ${answer.status}`);
      expectThat((await read()).value === text, 'the value changed');
    });
  await run.check('user-data.at-limit', `a value of exactly ${USER_DATA_LIMIT} bytes is accepted`, async () => {
    const answer = await client.request('PUT', '/api/v1/user/data', { body: 'b'.repeat(USER_DATA_LIMIT) });
    expectThat(answer.status === 204, `answered ${answer.status}`);
    expectThat((await read()).value.length === USER_DATA_LIMIT, 'value not stored whole');
  });
  await run.check('user-data.delete', 'DELETE /api/v1/user/data answers 204 and the value becomes ""', async () => {
    const answer = await client.request('DELETE', '/api/v1/user/data');
    expectThat(answer.status === 204, `answered ${answer.status}`);
    expectThat((await client.request('GET', '/api/v1/user/data')).json === '', 'value not empty');
  });
}
