/**
 * `--allow-changes`: saves the unit's configuration and user data, runs the write-path and
 * data-plane checks, and restores everything at the end: after the last check, after a check that
 * threw, and on SIGINT/SIGTERM (then exits 130/143 once restored).
 */
import { type CheckRun, expectThat } from './check-run.js';
import { differingParameters } from './config-change.js';
import { dataPlaneChecks } from './data-plane-checks.js';
import type { ResponseSchemas } from './response-schemas.js';
import { UdpCapture } from './udp-capture.js';
import { UnitClient } from './unit-client.js';
import { UnitState } from './unit-state.js';
import { writeChecks } from './write-checks.js';
import { zoneWriteChecks } from './zone-checks.js';

export async function changeChecks(
  run: CheckRun,
  client: UnitClient,
  schemas: ResponseSchemas,
  udpTimeoutS: number,
): Promise<void> {
  let state: UnitState;
  try {
    // Its own client: on SIGINT the checks' client is halted while this one restores.
    state = await UnitState.save(new UnitClient(client.baseUrl, client.timeoutMs));
  } catch (error) {
    run.skip(
      'changes',
      'write paths and data plane',
      `could not save the unit's state first: ${(error as Error).message}`,
    );
    return;
  }
  const capture = await UdpCapture.open();
  const onSignal = (signal: NodeJS.Signals) => {
    process.stderr.write(`lidar-sensor validate: ${signal}: restoring the unit's configuration and user data…\n`);
    client.halt();
    state.restore().then(
      (problems) => {
        for (const problem of problems) process.stderr.write(`lidar-sensor validate: could not restore ${problem}\n`);
        process.exit(signal === 'SIGINT' ? 130 : 143);
      },
      () => process.exit(1),
    );
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    await writeChecks(run, client, state.config, schemas.replaying);
    await zoneWriteChecks(run, client);
    // The data plane is checked in the unit's own configuration, as its users run it.
    await run.check('restore.config', 'the saved configuration is posted back before the data plane checks', () =>
      state.restoreConfig(),
    );
    await dataPlaneChecks(run, client, capture, udpTimeoutS, schemas.replaying);
  } finally {
    capture.close();
    client.forget();
    await run.check('restore', 'the configuration and user data are restored to what they were', async () => {
      const problems = await state.restore();
      expectThat(problems.length === 0, problems.join('; '));
      const now = await client.fresh('/api/v1/sensor/config');
      const differing = differingParameters(state.config, now);
      expectThat(differing.length === 0, `still different: ${differing.join(', ')}`);
    });
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  }
}
