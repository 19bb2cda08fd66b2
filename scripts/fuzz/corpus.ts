import { seededRandom } from '../../test/helpers/seeded-random.js';
/**
 * The requests the fuzzer sends: a valid template per route and method, and mutations of each
 * (bodies, values, keys, types, sizes, encodings, query strings, paths, methods, headers).
 * Deterministic for a seed. Restart, factory reset and a valid firmware image are left out: they
 * take the unit down on purpose, which is not what this suite looks for.
 */

export interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** Can change the unit's state when it succeeds (checked against snapshots when it does not). */
  write: boolean;
  /** What was done to the template, for the report of a failure. */
  label: string;
}

type Rand = () => number;
const pick = <T>(r: Rand, items: readonly T[]): T => items[Math.floor(r() * items.length)];
const int = (r: Rand, max: number) => Math.floor(r() * max);

const JSON_TYPE = { 'content-type': 'application/json' };
const CONFIG_VALUES: Record<string, unknown[]> = {
  lidar_mode: ['512x10', '1024x10', '2048x10', '1024x20'],
  udp_dest: ['', '127.0.0.1', 'sensor-host.local'],
  udp_port_lidar: [7502, 0, 65535],
  udp_port_imu: [7503, 0],
  udp_profile_lidar: ['RNG19_RFL8_SIG16_NIR16', 'RNG15_RFL8_NIR8'],
  azimuth_window: [
    [0, 360000],
    [90000, 270000],
  ],
  signal_multiplier: [1, 2],
  phase_lock_enable: [true, false],
  timestamp_mode: ['TIME_FROM_INTERNAL_OSC', 'TIME_FROM_PTP_1588'],
  operating_mode: ['NORMAL'],
  nmea_leap_seconds: [0, 37],
  udp_ip: ['127.0.0.1'],
  auto_start_flag: [1],
};
const PARAMETERS = Object.keys(CONFIG_VALUES);

interface Template {
  method: string;
  path: string;
  body?: () => unknown;
  rawType?: string;
  write: boolean;
}

function templates(r: Rand): Template[] {
  const param = pick(r, PARAMETERS);
  return [
    { method: 'GET', path: '/api/v1/sensor/config', write: false },
    { method: 'GET', path: '/api/v1/sensor/config?staging=true', write: false },
    { method: 'GET', path: `/api/v1/sensor/config/${param}`, write: false },
    {
      method: 'POST',
      path: '/api/v1/sensor/config',
      body: () => ({ [param]: pick(r, CONFIG_VALUES[param]) }),
      write: true,
    },
    {
      method: 'POST',
      path: '/api/v1/sensor/config?reinit=false&persist=false',
      body: () => ({ [param]: pick(r, CONFIG_VALUES[param]) }),
      write: true,
    },
    {
      method: 'PUT',
      path: `/api/v1/sensor/config/${param === 'udp_ip' || param === 'auto_start_flag' ? 'lidar_mode' : param}`,
      body: () => pick(r, CONFIG_VALUES[param === 'udp_ip' || param === 'auto_start_flag' ? 'lidar_mode' : param]),
      write: true,
    },
    { method: 'GET', path: '/api/v1/user/data', write: false },
    { method: 'GET', path: '/api/v1/user/data?include_metadata=true', write: false },
    {
      method: 'PUT',
      path: '/api/v1/user/data?policy=keep_on_config_delete',
      body: () => `rack ${int(r, 100)}`,
      write: true,
    },
    { method: 'DELETE', path: '/api/v1/user/data', write: true },
    { method: 'GET', path: '/api/v1/sensor/metadata', write: false },
    {
      method: 'GET',
      path: `/api/v1/sensor/metadata/${pick(r, ['sensor_info', 'lidar_data_format', 'beam_intrinsics', 'imu_intrinsics', 'lidar_intrinsics', 'calibration_status'])}`,
      write: false,
    },
    {
      method: 'GET',
      path: `/api/v1/sensor/alerts?cursor=${int(r, 5)}&mode=${pick(r, ['summary', 'default'])}`,
      write: false,
    },
    { method: 'GET', path: '/api/v1/sensor/telemetry', write: false },
    { method: 'GET', path: `/api/v1/time${pick(r, ['', '/system', '/sensor', '/ptp', '/ptp/profile'])}`, write: false },
    { method: 'PUT', path: '/api/v1/time/ptp/profile', body: () => pick(r, ['default', 'gptp', '']), write: true },
    {
      method: 'GET',
      path: `/api/v1/system/network${pick(r, ['', '/ipv4', '/ipv4/override', '/speed_override'])}`,
      write: false,
    },
    {
      method: 'PUT',
      path: '/api/v1/system/network/ipv4/override',
      body: () => `192.0.2.${10 + int(r, 200)}/24`,
      write: true,
    },
    { method: 'DELETE', path: '/api/v1/system/network/ipv4/override', write: true },
    { method: 'PUT', path: '/api/v1/system/network/speed_override', body: () => 100, write: true },
    { method: 'GET', path: '/api/v1/system/firmware', write: false },
    // Invalid images only (a valid one reboots the unit): random bytes, a truncated header.
    {
      method: 'POST',
      path: '/api/v1/system/firmware',
      rawType: 'application/octet-stream',
      body: () => Buffer.alloc(1 + int(r, 300_000), int(r, 256)),
      write: true,
    },
    {
      method: 'GET',
      path: `/api/v1/sensor/cmd/get_config_param?args=${pick(r, ['active', 'staged', param])}`,
      write: false,
    },
    {
      method: 'GET',
      path: `/api/v1/sensor/cmd/set_config_param?args=${param}+${encodeURIComponent(JSON.stringify(pick(r, CONFIG_VALUES[param])))}`,
      write: true,
    },
    {
      method: 'GET',
      path: `/api/v1/sensor/cmd/${pick(r, ['reinitialize', 'save_config_params', 'set_udp_dest_auto'])}`,
      write: true,
    },
  ];
}

const WEIRD_VALUES: (r: Rand) => unknown = (r) =>
  pick(r, [
    null,
    true,
    -1,
    1e308,
    -0,
    0.5,
    2 ** 53 + 1,
    '',
    ' ',
    '\u0000',
    '\ud800',
    'x'.repeat(1 + int(r, 5000)),
    [],
    {},
    [[[[[]]]]],
    Array.from({ length: int(r, 50_000) }, () => 'x'),
    { a: { b: { c: 1 } } },
    'NaN',
    '1024X10',
    '../../etc/passwd',
    '@auto',
    '%00',
  ]);

function deepNesting(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth);
}

/** A body mutated on the JSON level or the byte level. */
function mutateBody(r: Rand, template: Template): { body?: Buffer; label: string; type?: string } {
  const valid = template.body?.();
  const text = valid === undefined ? '' : Buffer.isBuffer(valid) ? valid.toString('latin1') : JSON.stringify(valid);
  switch (int(r, 12)) {
    case 0:
      return { body: Buffer.from(JSON.stringify(WEIRD_VALUES(r))), label: 'weird value' };
    case 1: {
      const keys: Record<string, unknown> = {};
      for (let i = 0, n = 1 + int(r, 20_000); i < n; i++)
        keys[`k${i}_${'z'.repeat(int(r, 30))}`] = pick(r, [1, 'v', null, [0, 1]]);
      return { body: Buffer.from(JSON.stringify(keys)), label: 'many unknown keys' };
    }
    case 2: {
      const bytes = Buffer.from(text || '{}');
      for (let i = 0, n = 1 + int(r, 4); i < n; i++) bytes[int(r, bytes.length)] = int(r, 256);
      return { body: bytes, label: 'flipped bytes' };
    }
    case 3:
      return { body: Buffer.from(text.slice(0, int(r, text.length + 1))), label: 'truncated' };
    case 4:
      return { body: Buffer.from(deepNesting(1 + int(r, 100_000))), label: 'deep nesting' };
    case 5:
      return { body: Buffer.from([0x22, 0xff, 0xfe, 0xc0, 0x80, 0x22]), label: 'invalid UTF-8' };
    case 6:
      return { body: Buffer.alloc(1024 * 1024 + int(r, 512 * 1024), 0x20), label: 'oversized' };
    case 7:
      return {
        body: Buffer.from('{"__proto__":{"polluted":1},"constructor":{"prototype":{"x":1}}}'),
        label: 'prototype keys',
      };
    case 8: {
      const obj =
        typeof valid === 'object' && valid !== null && !Buffer.isBuffer(valid) ? { ...(valid as object) } : {};
      (obj as Record<string, unknown>)[pick(r, PARAMETERS)] = WEIRD_VALUES(r);
      return { body: Buffer.from(JSON.stringify(obj)), label: 'one wrong value' };
    }
    case 9:
      return {
        body: Buffer.from(text),
        label: 'wrong content type',
        type: pick(r, [
          'text/plain; charset=latin1',
          'application/xml',
          'multipart/form-data; boundary=x',
          'application/json; charset=utf-16',
        ]),
      };
    case 10:
      return { body: Buffer.from(text), label: 'content-encoding', type: 'gzip' };
    default:
      return { body: Buffer.from(`${text}${text}`), label: 'doubled' };
  }
}

function mutatePath(r: Rand, path: string): string {
  switch (int(r, 8)) {
    case 0:
      return `${path}${path.includes('?') ? '&' : '?'}${pick(r, ['reinit=maybe', 'persist=2', 'cursor=-1', 'mode=SUMMARY', 'x=1', 'staging=yes', 'include_metadata=tru', 'policy=forever', 'args='])}`;
    case 1:
      return path.replace(/[a-z_]+(?=[^/]*$)/, (segment) => segment.toUpperCase());
    case 2:
      return `${path.split('?')[0]}/${pick(r, ['x', '..', '%2e%2e', '%00', 'a'.repeat(3000), '%ff%fe', ''])}`;
    case 3:
      return path.replace('/api/v1', pick(r, ['/api/v2', '/API/v1', '/api//v1', '/api/v1/.']));
    case 4:
      return `${path}${path.includes('?') ? '&' : '?'}${'q'.repeat(int(r, 6000))}=${'v'.repeat(int(r, 2000))}`;
    default:
      return path;
  }
}

export function* fuzzRequests(seed: number): Generator<FuzzRequest> {
  const r = seededRandom(seed);
  for (;;) {
    const template = pick(r, templates(r));
    const baseType = template.rawType ?? JSON_TYPE['content-type'];
    const validBody = template.body?.();
    const encode = (value: unknown) => (Buffer.isBuffer(value) ? value : Buffer.from(JSON.stringify(value)));
    const roll = r();
    if (roll < 0.25) {
      yield {
        method: template.method,
        path: template.path,
        headers: validBody === undefined ? {} : { 'content-type': baseType },
        body: validBody === undefined ? undefined : encode(validBody),
        write: template.write,
        label: 'valid',
      };
    } else if (roll < 0.7 && template.body) {
      const mutated = mutateBody(r, template);
      const headers: Record<string, string> = {
        'content-type': mutated.label === 'wrong content type' ? mutated.type! : baseType,
      };
      if (mutated.label === 'content-encoding') headers['content-encoding'] = 'gzip';
      yield {
        method: template.method,
        path: template.path,
        headers,
        body: mutated.body,
        write: template.write,
        label: mutated.label,
      };
    } else if (roll < 0.85) {
      const path = mutatePath(r, template.path);
      yield {
        method: template.method,
        path,
        headers: validBody === undefined ? {} : { 'content-type': baseType },
        body: validBody === undefined ? undefined : encode(validBody),
        write: template.write || template.method !== 'GET',
        label: 'mutated path',
      };
    } else {
      const method = pick(r, ['PATCH', 'OPTIONS', 'TRACE', 'DELETE', 'PUT', 'POST', 'HEAD', 'PROPFIND']);
      // Restart and factory reset are left out (see above); everything else with a wrong method.
      if (
        template.path.startsWith('/api/v1/sensor/config') &&
        method === 'DELETE' &&
        !template.path.includes('/config/')
      )
        continue;
      const headers: Record<string, string> = {
        'content-type': pick(r, [baseType, 'application/json', 'text/plain']),
        accept: pick(r, ['application/problem+json', '*/*', 'text/html']),
      };
      yield {
        method,
        path: template.path,
        headers,
        body: Buffer.from(JSON.stringify(WEIRD_VALUES(r))),
        write: (method !== 'GET' && method !== 'HEAD') || template.write,
        label: `method ${method}`,
      };
    }
  }
}

/** Malformed HTTP for raw sockets: the parser, not a route, must refuse these. */
export function malformedRequests(seed: number): Generator<{ bytes: Buffer; label: string }> {
  const r = seededRandom(seed);
  const cases: ((r: Rand) => [string | Buffer, string])[] = [
    () => ['FOO / HTTP/1.1\r\nHost: s\r\n\r\n', 'unknown method'],
    () => ['GET /api/v1/sensor/config HTTP/9.9\r\nHost: s\r\n\r\n', 'bad version'],
    () => ['GET  HTTP/1.1\r\n\r\n', 'empty target'],
    () => ['GET /a b c HTTP/1.1\r\nHost: s\r\n\r\n', 'spaces in target'],
    () => ['PUT /api/v1/user/data HTTP/1.1\r\nHost: s\r\nContent-Length: -5\r\n\r\n', 'negative length'],
    () => [
      'PUT /api/v1/user/data HTTP/1.1\r\nHost: s\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n"x"',
      'two lengths',
    ],
    () => [
      'PUT /api/v1/user/data HTTP/1.1\r\nHost: s\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nxx\r\n0\r\n\r\n',
      'bad chunk size',
    ],
    () => [
      'PUT /api/v1/user/data HTTP/1.1\r\nHost: s\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n3\r\n"x"\r\n0\r\n\r\n',
      'chunked and length',
    ],
    () => [`GET / HTTP/1.1\r\nHost: s\r\nX: ${'a'.repeat(20_000)}\r\n\r\n`, 'header overflow'],
    () => ['GET / HTTP/1.1\r\nHo st: s\r\n\r\n', 'space in header name'],
    () => ['GET / HTTP/1.1\r\nHost: s\r\nX: a\u0000b\r\n\r\n', 'NUL in header'],
    (r) => [Buffer.from(Array.from({ length: 1 + int(r, 2000) }, () => int(r, 256))), 'random bytes'],
    () => ['\r\n\r\n\r\n', 'empty lines'],
    () => ['HEAD /x HTTP/1.1\r\nHost: s\r\nContent-Length: abc\r\n\r\n', 'HEAD with bad length'],
    () => ['GET /api\\v1\\sensor\\config HTTP/1.1\r\nHost: s\r\n\r\n', 'backslash path'],
    () => ['GET http://[::1 HTTP/1.1\r\nHost: s\r\n\r\n', 'broken absolute form'],
  ];
  return (function* () {
    for (;;) {
      const [bytes, label] = pick(r, cases)(r);
      yield { bytes: typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : bytes, label };
    }
  })();
}
