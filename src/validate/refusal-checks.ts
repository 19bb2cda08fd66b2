/**
 * Refused writes change nothing: a PUT of a refused value per parameter, a problem body naming the
 * parameter, an unknown name, `@auto` by PUT, and POSTs that are refused whole (spec rule 5); none of them
 * reinitializes the unit.
 */
import { type CheckRun, expectThat, show } from './check-run.js';
import { differingParameters, initializationId } from './config-change.js';
import { problemShape } from './http-checks.js';
import { REFUSED_VALUES } from './spec-rules.js';
import type { Json, UnitClient } from './unit-client.js';

export async function refusalChecks(run: CheckRun, client: UnitClient, original: Json): Promise<void> {
  const before = await initializationId(client);
  await putRefusalChecks(run, client, original);
  await postRefusalChecks(run, client, original);
  await run.check(
    'write.refuse.no-reinit',
    'refused writes did not reinitialize the unit (same initialization_id)',
    async () => {
      const after = await initializationId(client);
      expectThat(after === before, `initialization_id ${before} → ${after}`);
    },
  );
}

async function putRefusalChecks(run: CheckRun, client: UnitClient, original: Json): Promise<void> {
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
}

/** POSTs to refuse whole: id, title, a JSON body, or a raw body that is not JSON. */
function refusedPosts(original: Json): [string, string, unknown, string | undefined][] {
  const otherFrequency = original.sync_pulse_out_frequency === 2 ? 3 : 2;
  return [
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
}

async function postRefusalChecks(run: CheckRun, client: UnitClient, original: Json): Promise<void> {
  for (const [id, title, body, raw] of refusedPosts(original))
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
      const changed = differingParameters(original, now);
      expectThat(changed.length === 0, `changed: ${changed.join(', ')}`);
    });
}
