/**
 * `--allow-changes`, the write paths: refusals change nothing (one check per parameter), a POST with
 * one bad member is refused whole, accepted changes reinitialize with a new initialization_id and
 * are read back everywhere they show, user data and its policy, `udp_dest` `@auto`.
 */
import { acceptedChangeChecks } from './accepted-change-checks.js';
import type { CheckRun } from './check-run.js';
import type { Replay } from './replay-signal.js';
import { refusalChecks } from './refusal-checks.js';
import type { Json, UnitClient } from './unit-client.js';
import { userDataWriteChecks } from './user-data-write-checks.js';

export async function writeChecks(run: CheckRun, client: UnitClient, original: Json, replay?: Replay): Promise<void> {
  await refusalChecks(run, client, original);
  await acceptedChangeChecks(run, client, original, replay);
  await userDataWriteChecks(run, client);
}
