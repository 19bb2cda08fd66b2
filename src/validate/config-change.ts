/**
 * Changing the unit's configuration as the write checks do: a change that must be accepted, the
 * initialization_id that tells whether the unit reinitialized, and which parameters differ from a saved
 * configuration.
 */
import { expectThat, show } from './check-run.js';
import type { Json, UnitClient } from './unit-client.js';
import { waitUntilRunning } from './unit-state.js';

/** The current initialization_id (fresh): a new one means the unit reinitialized. */
export async function initializationId(client: UnitClient): Promise<number> {
  return (await client.fresh('/api/v1/sensor/metadata/sensor_info')).initialization_id as number;
}

/** A change that must be accepted with 204; waits for the reinitialization to end. */
export async function acceptedChange(
  client: UnitClient,
  method: 'POST' | 'PUT',
  path: string,
  body: unknown,
): Promise<void> {
  const answer = await client.request(method, path, { body });
  expectThat(
    answer.status === 204,
    `${method} ${path} ${show(body, 60)} answered ${answer.status}: ${answer.text.slice(0, 120)}`,
  );
  await waitUntilRunning(client);
}

/** The parameters of `saved` whose value in `now` is another. */
export function differingParameters(saved: Json, now: Json): string[] {
  return Object.keys(saved).filter((k) => JSON.stringify(now[k]) !== JSON.stringify(saved[k]));
}
