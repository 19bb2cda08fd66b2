/**
 * Read-only checks: every GET of the interface against the OpenAPI document and the spec's rules
 * (key sets, types, ranges, consistency between endpoints, alert cursors, time fields). Nothing is
 * written to the unit.
 */
import { type CheckRun, expectThat, show, SkipCheck } from './check-run.js';
import { type ResponseSchemas, schemaErrors } from './response-schemas.js';
import { CONFIG_RULES, DOCUMENT_KEYS, keyMismatch, lidarModeShape, METADATA_MEMBERS } from './spec-rules.js';
import type { UnitClient } from './unit-client.js';

type Json = Record<string, unknown>;

/** Every JSON GET of the interface: check id stem, path, the spec's key list for it (if it has one). */
export const JSON_GETS: readonly {
  name: string;
  path: string;
  keys?: readonly string[];
  optional?: readonly string[];
}[] = [
  // Firmware 3.2 adds the zone packet destination (Zone Monitor).
  {
    name: 'config',
    path: '/api/v1/sensor/config',
    keys: Object.keys(CONFIG_RULES),
    optional: ['udp_dest_zm', 'udp_port_zm'],
  },
  // imu_data_format: aggregated by 3.1 firmware beside the spec's seven members.
  { name: 'metadata', path: '/api/v1/sensor/metadata', keys: METADATA_MEMBERS, optional: ['imu_data_format'] },
  ...[
    'sensor_info',
    'lidar_data_format',
    'imu_data_format',
    'beam_intrinsics',
    'imu_intrinsics',
    'lidar_intrinsics',
    'calibration_status',
  ].map((name) => ({ name, path: `/api/v1/sensor/metadata/${name}`, keys: DOCUMENT_KEYS[name] })),
  { name: 'alerts', path: '/api/v1/sensor/alerts', keys: DOCUMENT_KEYS.alerts },
  { name: 'alerts-summary', path: '/api/v1/sensor/alerts?mode=summary', keys: DOCUMENT_KEYS.alerts },
  { name: 'telemetry', path: '/api/v1/sensor/telemetry', keys: DOCUMENT_KEYS.telemetry },
  { name: 'user-data', path: '/api/v1/user/data' },
  { name: 'user-data-metadata', path: '/api/v1/user/data?include_metadata=true', keys: ['policy', 'value'] },
  { name: 'firmware', path: '/api/v1/system/firmware', keys: DOCUMENT_KEYS.firmware },
  { name: 'network', path: '/api/v1/system/network', keys: DOCUMENT_KEYS.network },
  { name: 'ipv4', path: '/api/v1/system/network/ipv4', keys: DOCUMENT_KEYS.ipv4 },
  { name: 'ipv4-override', path: '/api/v1/system/network/ipv4/override' },
  { name: 'time', path: '/api/v1/time', keys: DOCUMENT_KEYS.time },
  { name: 'time-sensor', path: '/api/v1/time/sensor', keys: DOCUMENT_KEYS.time_sensor },
  { name: 'time-system', path: '/api/v1/time/system', keys: DOCUMENT_KEYS.time_system },
  { name: 'time-ptp', path: '/api/v1/time/ptp', keys: DOCUMENT_KEYS.ptp },
  { name: 'ptp-profile', path: '/api/v1/time/ptp/profile' },
];

export async function readChecks(run: CheckRun, client: UnitClient, schemas: ResponseSchemas): Promise<void> {
  for (const get of JSON_GETS) await endpointChecks(run, client, schemas, get);
  await speedOverrideCheck(run, client);
  await configChecks(run, client);
  await metadataChecks(run, client);
  await alertChecks(run, client);
  await timeChecks(run, client);
  await systemChecks(run, client);
}

async function endpointChecks(
  run: CheckRun,
  client: UnitClient,
  schemas: ResponseSchemas,
  get: (typeof JSON_GETS)[number],
): Promise<void> {
  const at = `GET ${get.path}`;
  const ok = await run.check(`get.${get.name}.status`, `${at} answers 200`, async () => {
    const answer = await client.read(get.path);
    expectThat(answer.status === 200, `answered ${answer.status}: ${answer.text.slice(0, 160)}`);
  });
  if (!ok) {
    for (const part of ['content-type', 'schema', 'keys'])
      run.skip(`get.${get.name}.${part}`, `${at}: ${part}`, 'no 200 answer');
    return;
  }
  await run.check(
    `get.${get.name}.content-type`,
    `${at} is JSON with Content-Type: application/json (spec rule 3)`,
    async () => {
      const answer = await client.read(get.path);
      expectThat(/^application\/json\b/.test(answer.contentType), `Content-Type is ${show(answer.contentType)}`);
      expectThat(answer.json !== undefined, `body is not JSON: ${answer.text.slice(0, 80)}`);
    },
  );
  await run.check(`get.${get.name}.schema`, `${at} matches its response schema in the OpenAPI document`, async () => {
    const answer = await client.read(get.path);
    const validate = schemas.validator('GET', get.path, 200);
    if (!validate) throw new SkipCheck(`the OpenAPI document (${schemas.source}) has no 200 schema for it`);
    expectThat(validate(answer.json) === true, schemaErrors(validate));
  });
  if (get.keys)
    await run.check(`get.${get.name}.keys`, `${at} has exactly the spec's members`, async () => {
      const problem = keyMismatch((await client.read(get.path)).json, get.keys ?? [], get.optional);
      expectThat(problem === '', problem);
    });
}

async function speedOverrideCheck(run: CheckRun, client: UnitClient): Promise<void> {
  await run.check(
    'get.speed-override',
    'GET /api/v1/system/network/speed_override: null or 100 on T1 units, a refusal naming T1 on others',
    async () => {
      const answer = await client.read('/api/v1/system/network/speed_override');
      if (answer.status === 200) {
        expectThat(answer.json === null || answer.json === 100, `value ${answer.text}`);
        return 'automotive Ethernet (T1) unit';
      }
      expectThat(
        answer.status >= 400 && answer.status < 500,
        `answered ${answer.status} (a non-T1 unit must refuse with a 4xx)`,
      );
      return `not a T1 unit: ${answer.status}`;
    },
  );
}

async function configChecks(run: CheckRun, client: UnitClient): Promise<void> {
  let config: Json;
  try {
    config = await client.readJson('/api/v1/sensor/config');
  } catch (error) {
    run.skip('config', 'configuration value checks', `no configuration: ${(error as Error).message}`);
    return;
  }
  for (const [name, rule] of Object.entries(CONFIG_RULES)) {
    await run.check(`config.${name}.value`, `configuration parameter ${name} holds a valid value`, () => {
      if (!(name in config)) throw new Error('missing from GET /api/v1/sensor/config');
      const problem = rule(config[name]);
      expectThat(problem === undefined, problem ?? '');
      return show(config[name], 40);
    });
    await run.check(
      `config.${name}.single`,
      `GET /api/v1/sensor/config/${name} equals its value in the whole configuration`,
      async () => {
        const answer = await client.request('GET', `/api/v1/sensor/config/${name}`);
        // The reference shows 204 with a body; the body is what matters.
        expectThat(answer.status === 200 || answer.status === 204, `answered ${answer.status}`);
        expectThat(
          JSON.stringify(answer.json) === JSON.stringify(config[name]),
          `${answer.text} ≠ ${show(config[name])}`,
        );
      },
    );
  }
  await run.check(
    'config.azimuth-window.multiplier',
    'azimuth_window fits the maximum window of signal_multiplier',
    () => {
      const [lo, hi] = config.azimuth_window as number[];
      const max = ({ 2: 180000, 3: 120000 } as Record<number, number>)[config.signal_multiplier as number] ?? 360000;
      const span = (hi - lo + 360000) % 360000 || 360000;
      expectThat(span <= max, `window of ${span} mdeg over the ${max} mdeg allowed at ${config.signal_multiplier}x`);
    },
  );
  await run.check(
    'config.unknown-parameter',
    'GET /api/v1/sensor/config/<unknown name> is refused with 404',
    async () => {
      const answer = await client.request('GET', '/api/v1/sensor/config/no_such_parameter');
      expectThat(answer.status === 404, `answered ${answer.status}`);
    },
  );
  await run.check(
    'config.name-case',
    'parameter names are case sensitive (GET /api/v1/sensor/config/LIDAR_MODE is refused)',
    async () => {
      const answer = await client.request('GET', '/api/v1/sensor/config/LIDAR_MODE');
      expectThat(answer.status >= 400 && answer.status < 500, `answered ${answer.status}`);
    },
  );
}

async function metadataChecks(run: CheckRun, client: UnitClient): Promise<void> {
  let metadata: Json;
  try {
    metadata = await client.readJson('/api/v1/sensor/metadata');
  } catch (error) {
    run.skip('metadata', 'metadata consistency checks', (error as Error).message);
    return;
  }
  for (const member of METADATA_MEMBERS) {
    const path = member === 'config_params' ? '/api/v1/sensor/config' : `/api/v1/sensor/metadata/${member}`;
    await run.check(`metadata.${member}.same`, `metadata.${member} equals GET ${path}`, async () => {
      const single = await client.readJson(path);
      expectThat(
        JSON.stringify(single) === JSON.stringify(metadata[member]),
        `${show(metadata[member], 60)} ≠ ${show(single, 60)}`,
      );
    });
  }
  const info = metadata.sensor_info as Json;
  const format = metadata.lidar_data_format as Json;
  const config = metadata.config_params as Json;
  const beams = metadata.beam_intrinsics as Json;
  const shape = lidarModeShape(String(config?.lidar_mode));
  const pixels = format?.pixels_per_column as number;
  const checks: [string, string, () => unknown][] = [
    [
      'sensor-info.status',
      'sensor_info.status is RUNNING',
      () => expectThat(info.status === 'RUNNING', `status ${show(info.status)}`),
    ],
    [
      'sensor-info.init-id',
      "sensor_info.initialization_id is an integer 0..2^24-1 (it is the packets' u24 init_id)",
      () =>
        expectThat(
          Number.isInteger(info.initialization_id) &&
            (info.initialization_id as number) >= 0 &&
            (info.initialization_id as number) < 2 ** 24,
          show(info.initialization_id),
        ),
    ],
    [
      'sensor-info.prod-sn',
      "sensor_info.prod_sn is a decimal serial number that fits the packets' u40",
      () => expectThat(/^\d{1,13}$/.test(String(info.prod_sn)) && Number(info.prod_sn) < 2 ** 40, show(info.prod_sn)),
    ],
    [
      'format.columns-per-frame',
      'lidar_data_format.columns_per_frame matches config lidar_mode',
      () =>
        expectThat(
          shape !== undefined && format.columns_per_frame === shape.columns,
          `${show(format.columns_per_frame)} for lidar_mode ${show(config.lidar_mode)}`,
        ),
    ],
    [
      'format.columns-per-packet',
      'lidar_data_format.columns_per_packet equals config columns_per_packet',
      () =>
        expectThat(
          format.columns_per_packet === config.columns_per_packet,
          `${show(format.columns_per_packet)} ≠ ${show(config.columns_per_packet)}`,
        ),
    ],
    [
      'format.profile-lidar',
      'lidar_data_format.udp_profile_lidar equals config udp_profile_lidar',
      () =>
        expectThat(
          format.udp_profile_lidar === config.udp_profile_lidar,
          `${show(format.udp_profile_lidar)} ≠ ${show(config.udp_profile_lidar)}`,
        ),
    ],
    [
      'format.profile-imu',
      'lidar_data_format.udp_profile_imu equals config udp_profile_imu',
      () =>
        expectThat(
          format.udp_profile_imu === config.udp_profile_imu,
          `${show(format.udp_profile_imu)} ≠ ${show(config.udp_profile_imu)}`,
        ),
    ],
    [
      'format.column-window',
      'lidar_data_format.column_window lies in 0..columns_per_frame-1 (the whole frame for a full azimuth_window)',
      () => {
        const [first, last] = format.column_window as number[];
        const width = format.columns_per_frame as number;
        expectThat(
          Number.isInteger(first) && Number.isInteger(last) && first >= 0 && last < width,
          `${show(format.column_window)} outside 0..${width - 1}`,
        );
        const [lo, hi] = config.azimuth_window as number[];
        if (lo === 0 && hi === 360000)
          expectThat(first === 0 && last === width - 1, `${show(format.column_window)} for a full azimuth window`);
      },
    ],
    [
      'format.pixel-shift',
      'lidar_data_format.pixel_shift_by_row has one integer per channel',
      () =>
        expectThat(
          Array.isArray(format.pixel_shift_by_row) &&
            format.pixel_shift_by_row.length === pixels &&
            format.pixel_shift_by_row.every(Number.isInteger),
          `${(format.pixel_shift_by_row as unknown[])?.length} entries for ${pixels} channels`,
        ),
    ],
    [
      'beams.altitudes',
      'beam_intrinsics.beam_altitude_angles has pixels_per_column numbers',
      () =>
        expectThat(
          Array.isArray(beams.beam_altitude_angles) && beams.beam_altitude_angles.length === pixels,
          `${(beams.beam_altitude_angles as unknown[])?.length} for ${pixels} channels`,
        ),
    ],
    [
      'beams.azimuths',
      'beam_intrinsics.beam_azimuth_angles has pixels_per_column numbers',
      () =>
        expectThat(
          Array.isArray(beams.beam_azimuth_angles) && beams.beam_azimuth_angles.length === pixels,
          `${(beams.beam_azimuth_angles as unknown[])?.length} for ${pixels} channels`,
        ),
    ],
    [
      'beams.altitude-range',
      'beam altitude angles lie within ±90°',
      () =>
        expectThat(
          (beams.beam_altitude_angles as number[]).every((a) => Math.abs(a) <= 90),
          'an angle beyond ±90°',
        ),
    ],
    [
      'beams.transform',
      'beam_intrinsics.beam_to_lidar_transform is 16 numbers',
      () => expectThat(isMatrix(beams.beam_to_lidar_transform), show(beams.beam_to_lidar_transform, 60)),
    ],
    [
      'imu.transform',
      'imu_intrinsics.imu_to_sensor_transform is 16 numbers',
      () => expectThat(isMatrix((metadata.imu_intrinsics as Json).imu_to_sensor_transform), 'not 16 numbers'),
    ],
    [
      'lidar.transform',
      'lidar_intrinsics.lidar_to_sensor_transform is 16 numbers',
      () => expectThat(isMatrix((metadata.lidar_intrinsics as Json).lidar_to_sensor_transform), 'not 16 numbers'),
    ],
    [
      'calibration.timestamp',
      'calibration_status.reflectivity: valid is a boolean, timestamp YYYY-MM-DDThh:mm:ss without zone',
      () => {
        const reflectivity = (metadata.calibration_status as Json).reflectivity as Json;
        expectThat(typeof reflectivity.valid === 'boolean', `valid ${show(reflectivity.valid)}`);
        expectThat(
          /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/.test(String(reflectivity.timestamp)),
          `timestamp ${show(reflectivity.timestamp)}`,
        );
      },
    ],
  ];
  for (const [id, title, body] of checks) await run.check(`metadata.${id}`, title, body);
  await run.check('metadata.imu-format', 'imu_data_format equals config accel_fsr and gyro_fsr', async () => {
    const imu = await client.readJson('/api/v1/sensor/metadata/imu_data_format');
    expectThat(
      imu.accel_fsr === config.accel_fsr && imu.gyro_fsr === config.gyro_fsr,
      `${show(imu)} vs config ${config.accel_fsr}/${config.gyro_fsr}`,
    );
  });
  await run.check(
    'metadata.firmware',
    'sensor_info.image_rev names the running firmware (GET /api/v1/system/firmware fw)',
    async () => {
      const firmware = await client.readJson('/api/v1/system/firmware');
      expectThat(firmware.fw === info.image_rev, `fw ${show(firmware.fw)} ≠ image_rev ${show(info.image_rev)}`);
    },
  );
}

/**
 * What contradicts rule 3 across answers to the alert log read together: an answer whose log is not empty must
 * have next_cursor one past its last entry (mod 2^32), and every answer the same next_cursor as the first.
 */
export function nextCursorProblems(answers: { query: string; log: Json[]; next_cursor: number }[]): string[] {
  const problems: string[] = [];
  const first = answers[0]?.next_cursor;
  for (const { query, log, next_cursor } of answers) {
    const where = `GET /api/v1/sensor/alerts${query}`;
    const last = log.at(-1)?.cursor;
    if (typeof last === 'number' && next_cursor !== (last + 1) % 2 ** 32)
      problems.push(`${where}: next_cursor ${next_cursor} after a last entry with cursor ${last}`);
    if (next_cursor !== first) problems.push(`${where}: next_cursor ${next_cursor}, ${first} without a query`);
  }
  return problems;
}

function isMatrix(value: unknown): boolean {
  return Array.isArray(value) && value.length === 16 && value.every((n) => typeof n === 'number');
}

async function alertChecks(run: CheckRun, client: UnitClient): Promise<void> {
  let alerts: { active: Json[]; log: Json[]; next_cursor: number };
  try {
    alerts = await client.readJson('/api/v1/sensor/alerts');
  } catch (error) {
    run.skip('alerts', 'alert checks', (error as Error).message);
    return;
  }
  const next = alerts.next_cursor;
  await run.check('alerts.next-cursor', 'alerts next_cursor is an integer 0..2^32-1', () =>
    expectThat(Number.isInteger(next) && next >= 0 && next < 2 ** 32, show(next)),
  );
  await run.check('alerts.log-length', 'the alert log holds at most 32 entries (FIFO)', () =>
    expectThat(alerts.log.length <= 32, `${alerts.log.length} entries`),
  );
  await run.check('alerts.log-cursors', 'log cursors count up by one and end just below next_cursor', () => {
    alerts.log.forEach((entry, i) => {
      if (i > 0)
        expectThat(
          entry.cursor === ((alerts.log[i - 1].cursor as number) + 1) % 2 ** 32,
          `cursor ${entry.cursor} after ${alerts.log[i - 1].cursor}`,
        );
    });
    const last = alerts.log.at(-1);
    if (last)
      expectThat(
        (last.cursor as number) === (next + 2 ** 32 - 1) % 2 ** 32,
        `last cursor ${last.cursor}, next_cursor ${next}`,
      );
    return `${alerts.log.length} entries, next_cursor ${next}`;
  });
  await run.check(
    'alerts.entry-shape',
    'every alert entry has the full form: category, level, realtime (ns string), active, msg, cursor, id (hex), msg_verbose',
    () => {
      for (const entry of [...alerts.active, ...alerts.log]) {
        const problem = keyMismatch(entry, DOCUMENT_KEYS.alert_full);
        expectThat(problem === '', `${show(entry.id)}: ${problem}`);
        expectThat(/^0x[0-9A-Fa-f]{8}$/.test(String(entry.id)), `id ${show(entry.id)} is not 0x + 8 hex digits`);
        expectThat(/^\d+$/.test(String(entry.realtime)), `realtime ${show(entry.realtime)} is not a nanosecond string`);
        expectThat(['NOTICE', 'WARNING', 'ERROR'].includes(String(entry.level)), `level ${show(entry.level)}`);
      }
      return `${alerts.active.length} active, ${alerts.log.length} logged`;
    },
  );
  await run.check('alerts.active-flag', 'entries in active are active: true', () =>
    expectThat(
      alerts.active.every((e) => e.active === true),
      'an inactive entry in active',
    ),
  );
  await run.check('alerts.cursor-next', 'cursor=next_cursor returns no log entries (rule 3)', async () => {
    const answer = await client.fresh<{ log: Json[]; next_cursor: number }>(`/api/v1/sensor/alerts?cursor=${next}`);
    const newer = answer.log.filter((e) => (e.cursor as number) < next || answer.next_cursor !== next);
    expectThat(answer.next_cursor !== next || answer.log.length === 0, `${answer.log.length} entries returned`);
    return newer.length ? 'new alerts arrived meanwhile' : undefined;
  });
  await run.check('alerts.cursor-ahead', 'a cursor above next_cursor returns the whole log (rule 4)', async () => {
    if (next >= 2 ** 32 - 1) throw new SkipCheck('next_cursor at the top of the range');
    const answer = await client.fresh<{ log: Json[]; next_cursor: number }>(`/api/v1/sensor/alerts?cursor=${next + 1}`);
    const whole = await client.fresh<{ log: Json[] }>('/api/v1/sensor/alerts');
    expectThat(answer.log.length === whole.log.length, `${answer.log.length} of ${whole.log.length} entries`);
  });
  await run.check('alerts.cursor-filter', 'cursor=c returns exactly the log entries with cursor ≥ c', async () => {
    if (alerts.log.length < 2) throw new SkipCheck(`the log holds ${alerts.log.length} entries; need two`);
    const from = alerts.log[1].cursor as number;
    const answer = await client.fresh<{ log: Json[] }>(`/api/v1/sensor/alerts?cursor=${from}`);
    expectThat(
      answer.log.every((e) => (e.cursor as number) >= from) && answer.log[0]?.cursor === from,
      `first ${show(answer.log[0]?.cursor)}`,
    );
  });
  await run.check(
    'alerts.next-cursor-log',
    'next_cursor is one past the last log entry returned, with and without a cursor query (rule 3)',
    async () => {
      const cursors = [alerts.log[0]?.cursor, alerts.log.at(-1)?.cursor, next].filter((c) => typeof c === 'number');
      const queries = [
        '',
        '?mode=summary',
        ...[...new Set(cursors)].flatMap((c) => [`?cursor=${c}`, `?cursor=${c}&mode=summary`]),
      ];
      // Alerts may arrive between two reads: the whole round is read again once before it is judged.
      let problems: string[] = [];
      for (let round = 0; round < 2; round++) {
        const answers = [];
        for (const query of queries)
          answers.push({
            query,
            ...(await client.fresh<{ log: Json[]; next_cursor: number }>(`/api/v1/sensor/alerts${query}`)),
          });
        problems = nextCursorProblems(answers);
        if (problems.length === 0) return `${answers.length} queries, next_cursor ${answers[0].next_cursor}`;
      }
      expectThat(false, problems.join('; '));
    },
  );
  await run.check(
    'alerts.summary-shape',
    'mode=summary: active entries hold cursor, id, realtime; log entries also active',
    async () => {
      const summary = await client.readJson<{ active: Json[]; log: Json[] }>('/api/v1/sensor/alerts?mode=summary');
      for (const entry of summary.log)
        expectThat(
          keyMismatch(entry, DOCUMENT_KEYS.alert_summary_log) === '',
          keyMismatch(entry, DOCUMENT_KEYS.alert_summary_log),
        );
      for (const entry of summary.active) {
        // The reference response shows full entries in active; both forms are accepted there.
        const asSummary = keyMismatch(entry, DOCUMENT_KEYS.alert_summary_active);
        expectThat(asSummary === '' || keyMismatch(entry, DOCUMENT_KEYS.alert_full) === '', asSummary);
      }
    },
  );
  await run.check(
    'alerts.argument-order',
    'query argument order is irrelevant (cursor&mode = mode&cursor)',
    async () => {
      const a = await client.fresh('/api/v1/sensor/alerts?cursor=0&mode=summary');
      const b = await client.fresh('/api/v1/sensor/alerts?mode=summary&cursor=0');
      expectThat(JSON.stringify(a) === JSON.stringify(b), 'answers differ');
    },
  );
  await run.check('alerts.bad-cursor', 'a cursor that is not an integer is refused with 400', async () => {
    const answer = await client.request('GET', '/api/v1/sensor/alerts?cursor=banana');
    expectThat(answer.status === 400, `answered ${answer.status}`);
  });
  await run.check(
    'alerts.realtime-clock',
    'alert realtime (ns) is not later than GET /api/v1/time/system realtime (rule 6)',
    async () => {
      const system = await client.fresh('/api/v1/time/system');
      const latest = [...alerts.active, ...alerts.log].reduce((max, e) => Math.max(max, Number(e.realtime) / 1e9), 0);
      if (latest === 0) throw new SkipCheck('no alert entries to compare');
      expectThat(
        latest <= (system.realtime as number) + 1,
        `alert at ${latest} s after the unit's realtime ${system.realtime} s`,
      );
    },
  );
}

async function timeChecks(run: CheckRun, client: UnitClient): Promise<void> {
  await run.check('time.monotonic', 'time/system monotonic never decreases', async () => {
    const first = await client.fresh('/api/v1/time/system');
    const second = await client.fresh('/api/v1/time/system');
    expectThat(
      typeof first.monotonic === 'number' && (second.monotonic as number) >= first.monotonic,
      `${first.monotonic} then ${second.monotonic}`,
    );
  });
  await run.check('time.realtime', 'time/system realtime is seconds since the Unix epoch (after 2020)', async () => {
    const system = await client.readJson('/api/v1/time/system');
    expectThat(typeof system.realtime === 'number' && system.realtime > 1.577e9, show(system.realtime));
  });
  await run.check('time.tracking', 'time/system tracking has exactly the fields of chronyc tracking', async () => {
    const system = await client.readJson('/api/v1/time/system');
    const problem = keyMismatch(system.tracking, DOCUMENT_KEYS.tracking);
    expectThat(problem === '', problem);
  });
  await run.check(
    'time.members',
    'GET /api/v1/time equals its members /time/sensor, /time/system, /time/ptp in shape',
    async () => {
      const time = await client.readJson('/api/v1/time');
      for (const member of ['sensor', 'ptp'] as const) {
        const single = await client.readJson(`/api/v1/time/${member}`);
        const problem = keyMismatch(time[member], Object.keys(single));
        expectThat(problem === '', `${member}: ${problem}`);
      }
    },
  );
  const config = await client.readJson('/api/v1/sensor/config').catch(() => undefined);
  const sensor = await client.readJson('/api/v1/time/sensor').catch(() => undefined);
  if (!config || !sensor) {
    run.skip('time.config', 'time/sensor follows the configuration', 'configuration or time/sensor unreadable');
    return;
  }
  const io = sensor.multipurpose_io as Json;
  const timestamp = sensor.timestamp as Json;
  const pulseOut = (io?.sync_pulse_out ?? {}) as Json;
  const nmea = (io?.nmea ?? {}) as Json;
  const follows: [string, unknown, unknown][] = [
    ['timestamp.mode', timestamp?.mode, config.timestamp_mode],
    ['multipurpose_io.mode', io?.mode, config.multipurpose_io_mode],
    ['sync_pulse_out.angle_deg', pulseOut.angle_deg, config.sync_pulse_out_angle],
    ['sync_pulse_out.frequency_hz', pulseOut.frequency_hz, config.sync_pulse_out_frequency],
    ['sync_pulse_out.polarity', pulseOut.polarity, config.sync_pulse_out_polarity],
    ['sync_pulse_out.pulse_width_ms', pulseOut.pulse_width_ms, config.sync_pulse_out_pulse_width],
    ['nmea.baud_rate', nmea.baud_rate, config.nmea_baud_rate],
    ['nmea.polarity', nmea.polarity, config.nmea_in_polarity],
    ['nmea.leap_seconds', nmea.leap_seconds, config.nmea_leap_seconds],
    ['nmea.ignore_valid_char', nmea.ignore_valid_char, config.nmea_ignore_valid_char],
    ['sync_pulse_in.polarity', (sensor.sync_pulse_in as Json)?.polarity, config.sync_pulse_in_polarity],
  ];
  for (const [field, actual, expected] of follows)
    await run.check(`time.sensor.${field}`, `time/sensor ${field} follows the configuration`, () =>
      expectThat(actual === expected, `${show(actual)} ≠ configured ${show(expected)}`),
    );
  await run.check('time.sensor.time', 'time/sensor timestamp.time is a number of seconds ≥ 0', () =>
    expectThat(typeof timestamp?.time === 'number' && timestamp.time >= 0, show(timestamp?.time)),
  );
  await run.check('time.ptp-profile', 'GET /api/v1/time/ptp/profile equals time/ptp profile', async () => {
    const profile = (await client.read('/api/v1/time/ptp/profile')).json;
    const ptp = await client.readJson('/api/v1/time/ptp');
    expectThat(
      profile === ptp.profile ||
        (profile === 'default' && ptp.profile === '') ||
        (profile === '' && ptp.profile === 'default'),
      `${show(profile)} ≠ ${show(ptp.profile)}`,
    );
  });
  await run.check(
    'telemetry.phase-lock',
    'telemetry phase_lock_status is LOCKED, LOST or DISABLED, DISABLED without phase_lock_enable',
    async () => {
      const telemetry = await client.readJson('/api/v1/sensor/telemetry');
      expectThat(
        ['LOCKED', 'LOST', 'DISABLED'].includes(String(telemetry.phase_lock_status)),
        show(telemetry.phase_lock_status),
      );
      if (config.phase_lock_enable === false)
        expectThat(telemetry.phase_lock_status === 'DISABLED', `${telemetry.phase_lock_status} with phase locking off`);
    },
  );
  await run.check('telemetry.values', 'telemetry: integer mA, mV, °C and a positive timestamp_ns', async () => {
    const t = await client.readJson('/api/v1/sensor/telemetry');
    for (const key of ['input_current_ma', 'input_voltage_mv', 'internal_temperature_deg_c', 'timestamp_ns'])
      expectThat(Number.isInteger(t[key]), `${key} ${show(t[key])}`);
    expectThat((t.timestamp_ns as number) > 0, `timestamp_ns ${t.timestamp_ns}`);
  });
}

async function systemChecks(run: CheckRun, client: UnitClient): Promise<void> {
  const network = await client.readJson('/api/v1/system/network').catch(() => undefined);
  if (!network) {
    run.skip('network', 'network checks', 'GET /api/v1/system/network unreadable');
  } else {
    const ipv4 = network.ipv4 as Json;
    const cidr = /^(\d{1,3}\.){3}\d{1,3}\/\d{1,2}$/;
    const rules: [string, string, () => void][] = [
      [
        'network.ethaddr',
        'network ethaddr is a MAC address',
        () => expectThat(/^([0-9a-f]{2}:){5}[0-9a-f]{2}$/i.test(String(network.ethaddr)), show(network.ethaddr)),
      ],
      [
        'network.duplex',
        'network duplex is half or full',
        () => expectThat(network.duplex === 'half' || network.duplex === 'full', show(network.duplex)),
      ],
      [
        'network.speed',
        'network speed is an integer (Mbps)',
        () => expectThat(Number.isInteger(network.speed), show(network.speed)),
      ],
      [
        'network.speed-override',
        'network speed_override is null or 100',
        () =>
          expectThat(network.speed_override === null || network.speed_override === 100, show(network.speed_override)),
      ],
      [
        'network.carrier',
        'network carrier is a boolean',
        () => expectThat(typeof network.carrier === 'boolean', show(network.carrier)),
      ],
      [
        'network.ipv4.addr',
        'ipv4 addr is an address with prefix length',
        () => expectThat(cidr.test(String(ipv4.addr)), show(ipv4.addr)),
      ],
      [
        'network.ipv4.link-local',
        'ipv4 link_local is a 169.254/16 address with prefix length',
        () => expectThat(/^169\.254\.\d+\.\d+\/\d+$/.test(String(ipv4.link_local)), show(ipv4.link_local)),
      ],
      [
        'network.ipv6.link-local',
        'ipv6 link_local is an fe80:: address',
        () => expectThat(/^fe80:/i.test(String((network.ipv6 as Json)?.link_local)), show(network.ipv6)),
      ],
    ];
    for (const [id, title, body] of rules) await run.check(id, title, body);
    await run.check('network.ipv4.same', 'GET /api/v1/system/network/ipv4 equals network.ipv4', async () => {
      const single = await client.readJson('/api/v1/system/network/ipv4');
      expectThat(JSON.stringify(single) === JSON.stringify(ipv4), `${show(single)} ≠ ${show(ipv4)}`);
    });
    await run.check(
      'network.ipv4.override',
      'GET …/ipv4/override equals ipv4.override (null or an address)',
      async () => {
        const value = (await client.read('/api/v1/system/network/ipv4/override')).json ?? null;
        expectThat(
          value === ipv4.override && (value === null || cidr.test(String(value))),
          `${show(value)} vs ${show(ipv4.override)}`,
        );
      },
    );
  }
  await run.check('firmware.fields', 'firmware commit_pending is a boolean and fw a non-empty string', async () => {
    const firmware = await client.readJson('/api/v1/system/firmware');
    expectThat(
      typeof firmware.commit_pending === 'boolean' && typeof firmware.fw === 'string' && firmware.fw !== '',
      show(firmware),
    );
  });
  await run.check(
    'user-data.value',
    'GET /api/v1/user/data is a JSON string, equal to include_metadata value',
    async () => {
      const value = (await client.read('/api/v1/user/data')).json;
      const withMeta = await client.readJson('/api/v1/user/data?include_metadata=true');
      expectThat(typeof value === 'string' && value === withMeta.value, `${show(value)} vs ${show(withMeta.value)}`);
    },
  );
  await run.check(
    'user-data.policy',
    'user data policy is clear_on_config_delete or keep_on_config_delete',
    async () => {
      const withMeta = await client.readJson('/api/v1/user/data?include_metadata=1');
      expectThat(
        ['clear_on_config_delete', 'keep_on_config_delete'].includes(String(withMeta.policy)),
        show(withMeta.policy),
      );
    },
  );
  await run.check(
    'diagnostics.dump',
    'GET /api/v1/diagnostics/dump: 200 application/octet-stream, attachment with a file name',
    async () => {
      const answer = await client.request('GET', '/api/v1/diagnostics/dump');
      expectThat(answer.status === 200, `answered ${answer.status}`);
      expectThat(answer.contentType.startsWith('application/octet-stream'), `Content-Type ${answer.contentType}`);
      expectThat(
        /attachment;\s*filename=/i.test(answer.headers.get('content-disposition') ?? ''),
        `Content-Disposition ${show(answer.headers.get('content-disposition'))}`,
      );
    },
  );
}
