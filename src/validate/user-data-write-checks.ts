/**
 * User data written: a Unicode value read back, the keep and clear policies, refusals that leave the value
 * as it was, a value of exactly the size limit, DELETE.
 */
import { type CheckRun, expectThat } from './check-run.js';
import type { UnitClient } from './unit-client.js';

const USER_DATA_LIMIT = 131072;

/** Writes to refuse, each leaving the value as it was: id, title, path, request, the statuses allowed. */
const REFUSED_WRITES: [string, string, string, { body?: unknown; rawBody?: string }, number[]][] = [
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

export async function userDataWriteChecks(run: CheckRun, client: UnitClient): Promise<void> {
  const text = 'validator ✓ 1';
  const read = async () => client.fresh<{ value: string; policy: string }>('/api/v1/user/data?include_metadata=true');
  const written = async (path: string, body: string) => {
    const answer = await client.request('PUT', path, { body });
    expectThat(answer.status === 204, `answered ${answer.status}`);
  };
  await run.check(
    'user-data.put',
    'PUT /api/v1/user/data with a Unicode string answers 204 and reads back',
    async () => {
      await written('/api/v1/user/data', text);
      expectThat((await client.request('GET', '/api/v1/user/data')).json === text, 'value not read back');
    },
  );
  await run.check(
    'user-data.policy-keep',
    'PUT ?policy=keep_on_config_delete shows policy keep_on_config_delete',
    async () => {
      await written('/api/v1/user/data?policy=keep_on_config_delete', text);
      expectThat((await read()).policy === 'keep_on_config_delete', `policy ${(await read()).policy}`);
    },
  );
  await run.check(
    'user-data.policy-default',
    'PUT without policy sets clear_on_config_delete (the default)',
    async () => {
      await written('/api/v1/user/data', text);
      const now = await read();
      expectThat(now.policy === 'clear_on_config_delete', `policy ${now.policy}`);
    },
  );
  for (const [id, title, path, body, statuses] of REFUSED_WRITES)
    await run.check(`user-data.refuse.${id}`, `${title}; the value is unchanged`, async () => {
      const answer = await client.request('PUT', path, body);
      expectThat(statuses.includes(answer.status), `answered ${answer.status}`);
      expectThat((await read()).value === text, 'the value changed');
    });
  await run.check('user-data.at-limit', `a value of exactly ${USER_DATA_LIMIT} bytes is accepted`, async () => {
    await written('/api/v1/user/data', 'b'.repeat(USER_DATA_LIMIT));
    expectThat((await read()).value.length === USER_DATA_LIMIT, 'value not stored whole');
  });
  await run.check('user-data.delete', 'DELETE /api/v1/user/data answers 204 and the value becomes ""', async () => {
    const answer = await client.request('DELETE', '/api/v1/user/data');
    expectThat(answer.status === 204, `answered ${answer.status}`);
    expectThat((await client.request('GET', '/api/v1/user/data')).json === '', 'value not empty');
  });
}
