/**
 * HTTP behaviour every endpoint shares: 404 on an unknown path, 405 with `Allow` on a wrong method,
 * the error body's shape and content type, HEAD, keep-alive. Read-only: only refused requests.
 */
import { type CheckRun, expectThat, show } from './check-run.js';
import type { Answer, UnitClient } from './unit-client.js';
import { JSON_GETS } from './get-checks.js';

/** An RFC 9457 problem body (type, title, status, detail) whose status equals the answer's. */
export function problemShape(answer: Answer): string | undefined {
  const body = answer.json as Record<string, unknown> | undefined;
  if (body === undefined || typeof body !== 'object' || body === null)
    return `body is not a JSON object: ${answer.text.slice(0, 80)}`;
  for (const key of ['type', 'title', 'detail'])
    if (typeof body[key] !== 'string') return `problem body has no string ${key}`;
  if (body.status !== answer.status) return `problem status ${show(body.status)} ≠ HTTP ${answer.status}`;
  return undefined;
}

export async function httpChecks(run: CheckRun, client: UnitClient): Promise<void> {
  await errorChecks(run, client);
  await methodAndHeadChecks(run, client);
  await connectionAndQueryChecks(run, client);
}

/** The answer to an unknown path: its status, content type and problem body. */
async function errorChecks(run: CheckRun, client: UnitClient): Promise<void> {
  const unknown = '/api/v1/no/such/path';
  await run.check('http.unknown-path.status', 'an unknown path answers 404', async () => {
    const answer = await client.request('GET', unknown);
    expectThat(answer.status === 404, `answered ${answer.status}`);
  });
  await run.check(
    'http.error.content-type',
    'an error answers Content-Type: application/json (spec rule 3)',
    async () => {
      const answer = await client.request('GET', unknown);
      expectThat(/^application\/json\b/.test(answer.contentType), `Content-Type ${show(answer.contentType)}`);
    },
  );
  await run.check('http.error.body', 'an error body is a problem object: type, title, status, detail', async () => {
    const problem = problemShape(await client.request('GET', unknown));
    expectThat(problem === undefined, problem ?? '');
  });
  await run.check(
    'http.error.problem-json',
    'an error asked with Accept: application/problem+json comes as problem+json',
    async () => {
      const answer = await client.request('GET', unknown, { headers: { accept: 'application/problem+json' } });
      expectThat(
        /^application\/(problem\+)?json\b/.test(answer.contentType),
        `Content-Type ${show(answer.contentType)}`,
      );
      return answer.contentType.startsWith('application/problem+json')
        ? undefined
        : 'answered application/json (allowed by the spec)';
    },
  );
}

/** 405 with Allow on a wrong method; HEAD like GET without a body. */
async function methodAndHeadChecks(run: CheckRun, client: UnitClient): Promise<void> {
  for (const [method, path, allowed] of [
    ['PATCH', '/api/v1/sensor/config', 'GET'],
    ['DELETE', '/api/v1/sensor/metadata/sensor_info', 'GET'],
    ['POST', '/api/v1/sensor/telemetry', 'GET'],
    ['PUT', '/api/v1/time', 'GET'],
  ] as const) {
    const name = path.split('/').at(-1);
    await run.check(
      `http.method.${name}`,
      `${method} ${path} answers 405 with an Allow header naming ${allowed}`,
      async () => {
        const answer = await client.request(method, path, method === 'PATCH' || method === 'PUT' ? { body: {} } : {});
        expectThat(answer.status === 405, `answered ${answer.status}`);
        const allow = answer.headers.get('allow') ?? '';
        expectThat(allow.split(/,\s*/).includes(allowed), `Allow: ${show(allow)}`);
        const problem = problemShape(answer);
        expectThat(problem === undefined, problem ?? '');
      },
    );
  }
  for (const get of JSON_GETS.filter((g) => ['config', 'sensor_info', 'telemetry', 'time-system'].includes(g.name)))
    await run.check(`http.head.${get.name}`, `HEAD ${get.path} answers like GET without a body`, async () => {
      const head = await client.request('HEAD', get.path);
      expectThat(head.status === 200, `answered ${head.status}`);
      expectThat(head.text === '', `${head.text.length} body bytes`);
      expectThat(/^application\/json\b/.test(head.contentType), `Content-Type ${show(head.contentType)}`);
    });
}

async function connectionAndQueryChecks(run: CheckRun, client: UnitClient): Promise<void> {
  await run.check('http.keep-alive', 'answers are sent with Connection: keep-alive (spec rule 3)', async () => {
    const answer = await client.request('GET', '/api/v1/sensor/metadata/sensor_info');
    // fetch hides hop-by-hop headers on some runtimes; a present header must say keep-alive.
    const connection = answer.headers.get('connection');
    expectThat(connection === null || /keep-alive/i.test(connection), `Connection: ${connection}`);
    return connection === null ? 'header not visible to this client' : undefined;
  });
  await run.check(
    'http.malformed-query',
    'GET /api/v1/user/data?include_metadata=maybe is refused with 400',
    async () => {
      const answer = await client.request('GET', '/api/v1/user/data?include_metadata=maybe');
      expectThat(answer.status === 400, `answered ${answer.status}`);
    },
  );
  await run.check(
    'http.legacy-active',
    'legacy GET /api/v1/sensor/cmd/get_config_param?args=active equals the configuration',
    async () => {
      const answer = await client.request('GET', '/api/v1/sensor/cmd/get_config_param?args=active');
      if (answer.status === 404) return 'legacy command endpoints absent (allowed)';
      const config = await client.readJson('/api/v1/sensor/config');
      expectThat(answer.status === 200, `answered ${answer.status}`);
      const legacy = answer.json as Record<string, unknown>;
      const differing = Object.keys(config).filter(
        (k) => k in legacy && JSON.stringify(legacy[k]) !== JSON.stringify(config[k]),
      );
      expectThat(differing.length === 0, `differs in ${differing.join(', ')}`);
    },
  );
}
