/**
 * deploy/compose.yaml as written: four units and the example client on one bridge network. Every unit becomes
 * healthy, the client reaches each by name (it sets udp_dest "@auto" on sensor-1..4 and counts their packets),
 * and `down -v` leaves no container, network or volume of the project.
 */
import { afterAll, describe, expect, inject, it } from 'vitest';
import { compose, docker, inspect, PREFIX } from './docker.js';
import { waitFor } from '../helpers/poll.js';

const skip = inject('dockerSkip');
const project = `${PREFIX}-fleet`;
const file = 'deploy/compose.yaml';
const units = ['sensor-1', 'sensor-2', 'sensor-3', 'sensor-4'];
const figures: Record<string, string> = {};

const run = (args: string[]): Promise<string> =>
  compose(['-p', project, '-f', file, ...args], { NODE_IMAGE: inject('baseImage') });

async function leftovers(): Promise<string[]> {
  const label = `label=com.docker.compose.project=${project}`;
  const found = await Promise.all([
    docker(['ps', '-a', '--filter', label, '--format', 'container {{.Names}}']),
    docker(['network', 'ls', '--filter', label, '--format', 'network {{.Name}}']),
    docker(['volume', 'ls', '--filter', label, '--format', 'volume {{.Name}}']),
  ]);
  return found.flatMap((text) => text.split('\n')).filter(Boolean);
}

describe.skipIf(skip !== '')('the Compose fleet (deploy/compose.yaml)', () => {
  afterAll(async () => {
    await run(['down', '-v', '--remove-orphans', '--timeout', '5']).catch(() => '');
    console.log(`compose figures: ${JSON.stringify(figures)}`);
  });

  it('comes up with every unit healthy', async () => {
    const started = Date.now();
    await run(['up', '-d', '--no-build']);
    for (const unit of units) {
      const id = await run(['ps', '-q', unit]);
      await waitFor(async () => (await inspect(id, '{{.State.Health.Status}}')) === 'healthy', 120_000, unit);
    }
    figures.healthySeconds = ((Date.now() - started) / 1000).toFixed(1);
  });

  it('lets the example client reach each unit by name and receive its packets', async () => {
    const addresses = ['172.30.0.11', '172.30.0.12', '172.30.0.13', '172.30.0.14'];
    const line = await waitFor(
      async () => {
        const lines = (await run(['logs', '--no-color', 'client'])).split('\n');
        return lines.find((l) => addresses.every((a) => new RegExp(`${a} lidar [1-9]\\d*/s`).test(l)));
      },
      90_000,
      'a client report with lidar packets from all four units',
    );
    figures.clientReport = line.trim();
    const logs = await run(['logs', '--no-color', 'client']);
    expect(logs).toContain('receiving from http://sensor-1, http://sensor-2, http://sensor-3, http://sensor-4');
  });

  it('goes down cleanly and leaves nothing behind', async () => {
    const started = Date.now();
    await run(['down', '-v', '--remove-orphans', '--timeout', '5']);
    figures.downSeconds = ((Date.now() - started) / 1000).toFixed(1);
    expect(await leftovers()).toEqual([]);
  });
});
