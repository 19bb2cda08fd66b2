/**
 * Checks that change nothing on the unit: every GET of the OpenAPI document against its schema, HTTP behaviour
 * (404/405, HEAD, error shape) and the spec's cross-endpoint rules.
 */
import type { HttpProbe } from './http-probe.js';
import type { AnswerSchemas } from './openapi-schemas.js';
import type { CheckLog } from './report.js';

/** GETs with required parameters, the legacy cmd/ family (setters among them) and the heavy dump: not read here. */
const NOT_READ = /\{|\/cmd\/|\/diagnostics\/dump/;

export async function readOnlyChecks(log: CheckLog, http: HttpProbe, schemas: AnswerSchemas | undefined) {
  const paths = schemas ? Object.keys(schemas.document.paths) : [];
  const answers = new Map<string, unknown>();
  for (const path of paths.filter((p) => schemas?.document.paths[p]?.get && !NOT_READ.test(p))) {
    const id = `get${path.replace('/api/v1', '').replace(/[/.]/g, '.')}`;
    let a: Awaited<ReturnType<HttpProbe['get']>>;
    try {
      a = await http.get(path);
    } catch (err) {
      log.record(`${id}.status`, `GET ${path} answers`, 'fail', (err as Error).message);
      continue;
    }
    if (a.status === 409 && schemas?.document.paths[path]?.get?.responses?.['409']) {
      log.skip(
        `${id}.status`,
        `GET ${path} answers 200`,
        `not on this unit (409, documented): ${String((a.json as { detail?: string })?.detail ?? '')}`,
      );
      continue;
    }
    if (
      !log.expect(
        `${id}.status`,
        `GET ${path} answers 200`,
        a.status === 200 ? '' : `status ${a.status}: ${a.text.slice(0, 120)}`,
      )
    )
      continue;
    if (path.endsWith('.yaml')) {
      log.expect(
        `${id}.type`,
        `GET ${path} is YAML`,
        /yaml/.test(a.contentType) ? '' : `content-type ${a.contentType}`,
      );
      continue;
    }
    log.expect(
      `${id}.type`,
      `GET ${path} is application/json`,
      a.contentType.startsWith('application/json') && a.json !== undefined
        ? ''
        : `content-type ${a.contentType}, body ${a.text.slice(0, 60)}`,
    );
    answers.set(path, a.json);
    const problems = schemas?.problems(path, 'get', 200, a.json);
    if (problems === undefined)
      log.skip(
        `${id}.schema`,
        `GET ${path} fits the OpenAPI schema`,
        'the document gives no JSON schema for this answer',
      );
    else log.expect(`${id}.schema`, `GET ${path} fits the OpenAPI schema`, problems);
    await headCheck(log, http, path, id);
  }
  await httpBehaviour(log, http);
  metadataConsistency(log, answers);
  await alertCursor(log, http);
  timeFields(log, answers);
  return answers;
}

async function headCheck(log: CheckLog, http: HttpProbe, path: string, id: string) {
  try {
    const h = await http.request('HEAD', path);
    log.expect(
      `${id}.head`,
      `HEAD ${path} answers like GET without a body`,
      h.status === 200 && h.text === '' ? '' : `status ${h.status}, ${h.text.length} body bytes`,
    );
  } catch (err) {
    log.record(`${id}.head`, `HEAD ${path} answers like GET without a body`, 'fail', (err as Error).message);
  }
}

const isProblem = (body: unknown) =>
  typeof body === 'object' && body !== null && Object.values(body).some((v) => typeof v === 'string' && v.length > 0);

async function httpBehaviour(log: CheckLog, http: HttpProbe) {
  const cases: [string, string, string, number][] = [
    ['http.unknown-route', 'an unknown route answers 404', '/api/v1/no/such/route', 404],
    ['http.unknown-method', 'a method a route lacks answers 405', '/api/v1/sensor/metadata', 405],
  ];
  for (const [id, title, path, want] of cases) {
    try {
      const a = await http.request(want === 405 ? 'PATCH' : 'GET', path);
      if (!log.expect(`${id}.status`, title, a.status === want ? '' : `status ${a.status}`)) continue;
      log.expect(
        `${id}.type`,
        `${title}: body is JSON`,
        a.contentType.startsWith('application/json') ? '' : `content-type ${a.contentType}`,
      );
      log.expect(
        `${id}.body`,
        `${title}: body names the problem`,
        isProblem(a.json) ? '' : `body ${a.text.slice(0, 80)}`,
      );
    } catch (err) {
      log.record(`${id}.status`, title, 'fail', (err as Error).message);
    }
  }
  try {
    const a = await http.request('GET', '/api/v1/sensor/alerts?cursor=minus-one');
    log.expect(
      'http.bad-query.status',
      'GET alerts with a non-integer cursor answers 400',
      a.status === 400 ? '' : `status ${a.status}`,
    );
    log.expect(
      'http.bad-query.body',
      'the 400 body is JSON naming the problem',
      a.contentType.startsWith('application/json') && isProblem(a.json) ? '' : `content-type ${a.contentType}`,
    );
    const p = await fetch(new URL('/api/v1/no/such/route', http.base), {
      headers: { accept: 'application/problem+json' },
    });
    log.expect(
      'http.problem-json',
      'an error asked for as application/problem+json comes as such',
      (p.headers.get('content-type') ?? '').startsWith('application/problem+json')
        ? ''
        : `content-type ${p.headers.get('content-type')}`,
    );
  } catch (err) {
    log.record(
      'http.bad-query.status',
      'GET alerts with a non-integer cursor answers 400',
      'fail',
      (err as Error).message,
    );
  }
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null ? (v as Obj) : {});

function metadataConsistency(log: CheckLog, answers: Map<string, unknown>) {
  const config = obj(answers.get('/api/v1/sensor/config'));
  const format = obj(answers.get('/api/v1/sensor/metadata/lidar_data_format'));
  const beams = obj(answers.get('/api/v1/sensor/metadata/beam_intrinsics'));
  const whole = obj(answers.get('/api/v1/sensor/metadata'));
  if (!Object.keys(config).length || !Object.keys(format).length) {
    log.skip('meta.consistency', 'lidar_data_format agrees with config_params', 'config or lidar_data_format not read');
    return;
  }
  const mode = String(config.lidar_mode ?? '');
  const [columns] = mode.split('x').map(Number);
  const same = (id: string, title: string, a: unknown, b: unknown) =>
    log.expect(
      `meta.${id}`,
      title,
      JSON.stringify(a) === JSON.stringify(b) ? '' : `${JSON.stringify(a)} ≠ ${JSON.stringify(b)}`,
    );
  same(
    'columns-per-frame',
    'lidar_data_format.columns_per_frame matches lidar_mode',
    format.columns_per_frame,
    columns,
  );
  same(
    'columns-per-packet',
    'lidar_data_format.columns_per_packet matches config columns_per_packet',
    format.columns_per_packet,
    config.columns_per_packet,
  );
  same(
    'profile-lidar',
    'lidar_data_format.udp_profile_lidar matches config',
    format.udp_profile_lidar,
    config.udp_profile_lidar,
  );
  same(
    'profile-imu',
    'lidar_data_format.udp_profile_imu matches config',
    format.udp_profile_imu,
    config.udp_profile_imu,
  );
  const pixels = Number(format.pixels_per_column);
  same(
    'pixel-shift-rows',
    'pixel_shift_by_row has one entry per pixel',
    (format.pixel_shift_by_row as unknown[] | undefined)?.length,
    pixels,
  );
  const window = format.column_window as number[] | undefined;
  log.expect(
    'meta.column-window',
    'column_window lies within the frame',
    window && window.length === 2 && window.every((c) => c >= 0 && c < columns)
      ? ''
      : `column_window ${JSON.stringify(window)} for ${columns} columns`,
  );
  if (Object.keys(beams).length) {
    same(
      'beam-altitudes',
      'beam_altitude_angles has one entry per pixel',
      (beams.beam_altitude_angles as unknown[] | undefined)?.length,
      pixels,
    );
    same(
      'beam-azimuths',
      'beam_azimuth_angles has one entry per pixel',
      (beams.beam_azimuth_angles as unknown[] | undefined)?.length,
      pixels,
    );
  } else log.skip('meta.beam-altitudes', 'beam_intrinsics has one angle per pixel', 'beam_intrinsics not read');
  if (Object.keys(whole).length) {
    same(
      'whole-format',
      'metadata.lidar_data_format equals GET metadata/lidar_data_format',
      whole.lidar_data_format,
      format,
    );
    same('whole-config', 'metadata.config_params equals GET sensor/config', whole.config_params, config);
    same('whole-beams', 'metadata.beam_intrinsics equals GET metadata/beam_intrinsics', whole.beam_intrinsics, beams);
    const info = obj(answers.get('/api/v1/sensor/metadata/sensor_info'));
    same(
      'whole-info',
      'metadata.sensor_info equals GET metadata/sensor_info (but the clock)',
      strip(whole.sensor_info),
      strip(info),
    );
  }
}

const strip = (v: unknown) => Object.fromEntries(Object.entries(obj(v)).filter(([k]) => !/time|uptime/.test(k)));

async function alertCursor(log: CheckLog, http: HttpProbe) {
  try {
    const a = obj((await http.get('/api/v1/sensor/alerts')).json);
    const cursor = a.next_cursor as number;
    const entries = (a.log as Obj[] | undefined) ?? [];
    log.expect(
      'alerts.cursor',
      'next_cursor is one past the last log entry',
      typeof cursor === 'number' && entries.every((e) => Number(e.cursor) < cursor) ? '' : `next_cursor ${cursor}`,
    );
    const cursors = entries.map((e) => Number(e.cursor));
    log.expect(
      'alerts.order',
      'log entries come in increasing cursor order',
      cursors.every((c, i) => i === 0 || c > (cursors[i - 1] ?? -1)) ? '' : `cursors ${cursors.join(',')}`,
    );
    const b = obj((await http.get(`/api/v1/sensor/alerts?cursor=${cursor}`)).json);
    log.expect(
      'alerts.from-next',
      'cursor=next_cursor gives an empty log and the same next_cursor',
      ((b.log as unknown[]) ?? []).length === 0 && b.next_cursor === cursor
        ? ''
        : `got ${JSON.stringify(b).slice(0, 80)}`,
    );
  } catch (err) {
    log.record('alerts.cursor', 'next_cursor is one past the last log entry', 'fail', (err as Error).message);
  }
}

function timeFields(log: CheckLog, answers: Map<string, unknown>) {
  const time = obj(answers.get('/api/v1/time'));
  if (!Object.keys(time).length)
    return log.skip('time.fields', 'GET /time holds sensor, system and ptp', 'GET /time not read');
  for (const key of ['sensor', 'system', 'ptp'])
    log.expect(`time.${key}`, `GET /time holds ${key}`, key in time ? '' : `keys ${Object.keys(time).join(',')}`);
  const sub = obj(answers.get('/api/v1/time/system'));
  log.expect(
    'time.system-realtime',
    'time/system.realtime is a positive number of seconds',
    typeof sub.realtime === 'number' && sub.realtime > 0 ? '' : `realtime ${sub.realtime}`,
  );
}
