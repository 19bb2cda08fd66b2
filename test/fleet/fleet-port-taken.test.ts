/**
 * Issue 57: the fleet knows its own units. Another server already listens on the address and port of
 * unit-1: the fleet must not take that server's answers for its unit. unit-1 cannot start (its port is
 * taken): the ready line names it and why, /units says `failed` with the unit's own reason, /metrics
 * counts it down and holds none of the other server's samples under its name; once the port is free, the
 * fleet starts it without a restart of the fleet.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliProcess, freePort, startCli } from '../helpers/cli-process.js';
import { type FleetProcess, startFleet } from '../helpers/fleet-process.js';
import { waitFor } from '../helpers/poll.js';
import { parseMetrics, samples, sampleValue } from '../helpers/prometheus.js';

const FIRST = '127.0.16.1';

interface UnitListing {
  name: string;
  state: string;
  pid: number | null;
  problem: string | null;
}

describe('a fleet unit whose port is taken by another server', () => {
  let squatter: CliProcess | undefined;
  let fleet: FleetProcess | undefined;
  let dataRoot: string;

  beforeAll(async () => {
    dataRoot = mkdtempSync(join(tmpdir(), 'fleet-port-taken-'));
    squatter = await startCli({ host: FIRST, args: ['--serial', '122201000999'] });
    fleet = await startFleet([
      '--count',
      '2',
      '--first-address',
      FIRST,
      '--port',
      String(squatter.port),
      '--first-serial',
      '122201000700',
      '--data-root',
      dataRoot,
    ]);
  });

  afterAll(async () => {
    await fleet?.stop();
    await squatter?.stop();
    rmSync(dataRoot, { recursive: true, force: true });
  });

  const units = async () => (await (await fetch(`${fleet!.endpoint}/units`)).json()) as UnitListing[];
  const metrics = async () => parseMetrics(await (await fetch(`${fleet!.endpoint}/metrics`)).text());

  it('is not taken for up: failed in /units with its reason, down in /metrics, named in the ready line', async () => {
    const listed = await units();
    const [first, second] = listed;
    expect(second?.state).toBe('running');
    expect(first?.state).toBe('failed');
    expect(first?.problem).toMatch(new RegExp(`port ${squatter!.port} on ${FIRST} is already in use`));
    const parsed = await metrics();
    expect(sampleValue(parsed, 'lidar_fleet_unit_up', { unit: first!.name })).toBe(0);
    expect(sampleValue(parsed, 'lidar_fleet_unit_up', { unit: second!.name })).toBe(1);
    // The other server's metrics are not scraped under the unit's name.
    expect(samples(parsed, 'lidar_sensor_info', { unit: first!.name })).toEqual([]);
    expect(samples(parsed, 'lidar_sensor_info', { unit: second!.name })).toHaveLength(1);
    // The ready line names the unit that is not, and why.
    const ready = fleet!
      .output()
      .split('\n')
      .find((line) => line.includes('"fleet ready'));
    expect(ready).toMatch(new RegExp(`${first!.name}.*already in use`));
    // It is not "starting it again" as if it had run: it cannot start.
    expect(fleet!.output()).toMatch(/unit-1.*cannot start/);
  });

  it('starts it once the port is free, without restarting the fleet', async () => {
    const port = squatter!.port;
    await squatter!.stop();
    squatter = undefined;
    const first = await waitFor(
      async () => (await units()).find((u) => u.state === 'running' && u.name === 'unit-1'),
      60_000,
      'unit-1 running',
      200,
    );
    expect(first.problem).toBeNull();
    const info = (await (await fetch(`http://${FIRST}:${port}/api/v1/sensor/metadata/sensor_info`)).json()) as {
      prod_sn: string;
    };
    expect(info.prod_sn).not.toBe('122201000999');
    expect(sampleValue(await metrics(), 'lidar_fleet_unit_up', { unit: 'unit-1' })).toBe(1);
  });
});

describe('a fleet stopped while it waits to start a unit again', () => {
  it('says the unit ended and does not say it starts it again', async () => {
    const dataRoot = mkdtempSync(join(tmpdir(), 'fleet-stop-'));
    const port = await freePort('127.0.16.9');
    const fleet = await startFleet([
      '--count',
      '1',
      '--first-address',
      '127.0.16.9',
      '--port',
      String(port),
      '--data-root',
      dataRoot,
    ]);
    try {
      const [unit] = (await (await fetch(`${fleet.endpoint}/units`)).json()) as UnitListing[];
      const exited = new Promise((resolve) => fleet.process.once('exit', resolve));
      // The unit ends (as one signal to a service's processes ends them all), then the fleet is stopped
      // within the first back-off, before any new start.
      process.kill(unit!.pid!, 'SIGTERM');
      await waitFor(() => /unit-1.*process ended/.test(fleet.output()), 10_000, 'the unit to end');
      process.kill(fleet.process.pid!, 'SIGTERM');
      await exited;
      expect(fleet.output()).toMatch(/stopping the fleet/);
      expect(fleet.output()).not.toMatch(/starting it again|starting unit-1 again/);
    } finally {
      await fleet.stop();
      rmSync(dataRoot, { recursive: true, force: true });
    }
  });
});
