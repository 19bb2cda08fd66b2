/**
 * Read-only checks: every GET of the interface against the OpenAPI document and the spec's rules
 * (key sets, types, ranges, consistency between endpoints, alert cursors, time fields). Nothing is
 * written to the unit. Each group reads what it judges itself, so a group whose document is
 * unreadable is skipped without stopping the others.
 */
import { alertChecks } from './alert-checks.js';
import type { CheckRun } from './check-run.js';
import { configReadChecks } from './config-read-checks.js';
import { getChecks } from './get-checks.js';
import { metadataChecks } from './metadata-checks.js';
import type { ResponseSchemas } from './response-schemas.js';
import { systemChecks } from './system-checks.js';
import { timeChecks } from './time-checks.js';
import type { UnitClient } from './unit-client.js';

export async function readChecks(run: CheckRun, client: UnitClient, schemas: ResponseSchemas): Promise<void> {
  await getChecks(run, client, schemas);
  await configReadChecks(run, client);
  await metadataChecks(run, client);
  await alertChecks(run, client);
  await timeChecks(run, client);
  await systemChecks(run, client);
}
