/**
 * Every `docker …` line the README and the docs show: each documented `docker run` runs here as written but for a
 * unique container, volume and network name (and a free port or address instead of the documented one), detached
 * and with `--rm`; it is cut short once the unit answers its first request, and removed whatever happens. The other
 * docker lines (build, compose, swarm) are what an existing deployment test already runs: COVERED names the test
 * of each, and a docker line that is neither run here nor covered fails.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { docLines, withoutComment } from '../docs/doc-code-blocks.js';
import { waitFor } from '../helpers/poll.js';
import { docker, inspect, PREFIX, publishedPort, removeAll } from './docker.js';

const ROOT = resolve(import.meta.dirname, '../..');
const skip = inject('dockerSkip');
const image = inject('image');
const prefix = `${PREFIX}-doc`;

/** The docker commands of the docs: shell code blocks, and the README's table of ways to port 80 (inline code). */
function documentedDockerLines(): { page: string; line: string }[] {
  const inBlocks = docLines()
    .map(({ page, line }) => ({ page, line: withoutComment(line) }))
    .filter(({ line }) => /^(?:[A-Z_]+=\S+\s+)*docker(?:-compose)?\s/.test(line));
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const inline = [...readme.matchAll(/`(docker [^`]+)`/g)]
    .map((m) => m[1])
    // A `docker run` that names no image is the README's counter-example (`-p 80:80`), not a command to run.
    .filter((line) => /^docker network create /.test(line) || /^docker run .*\slidar-sensor(?:\s|$)/.test(line))
    .map((line) => ({ page: 'README.md', line }));
  return [...inBlocks, ...inline];
}

/** Docker lines an existing deployment test runs (the same command, or the same file with the test's names). */
const COVERED: [RegExp, string][] = [
  [
    /^docker build (?!--platform)/,
    'test/deployments/global-setup.ts (docker build of the Dockerfile on the local base)',
  ],
  [/^docker build --platform linux\/arm64/, 'test/deployments/arm64/global-setup.ts (npm run test:deploy:arm64)'],
  [
    /docker(?:-compose| compose) -p lidar-fleet -f deploy\/compose\.yaml (?:up|logs)/,
    'test/deployments/compose.test.ts',
  ],
  [/^docker network create /, 'test/deployments/doc-docker.test.ts (made for the docker run line that uses it)'],
  [/^(?:[A-Z_]+=\S+\s+)*docker (?:swarm|stack|service|node) /, 'test/deployments/swarm.test.ts'],
];

interface Started {
  container: string;
  /** Where the unit's HTTP answers, from this machine. */
  url: string;
}

let counter = 0;

/** Runs one documented `docker run` line with this run's names; resolves once the unit's address is known. */
async function runDocumented(line: string): Promise<Started> {
  counter += 1;
  const container = `${prefix}-${counter}`;
  const network = `${prefix}-net-${counter}`;
  const hostAddress = `127.0.9.${counter}`;
  let words = line.replace(/^docker run /, '').split(/\s+/);
  words = words.filter((w) => w !== '--rm' && w !== '-d');
  const named = words.indexOf('--name');
  if (named >= 0) words.splice(named, 2);
  const published = words.indexOf('-p');
  if (published >= 0) words[published + 1] = '127.0.0.1::80';
  words = words.map((w) => w.replace(/^sensor-data:/, `${prefix}-data-${counter}:`).replace('127.0.0.2', hostAddress));
  const onNetwork = words.indexOf('--network');
  const ownNetwork = onNetwork >= 0 && words[onNetwork + 1] !== 'host';
  if (ownNetwork) {
    // The README creates this network once: `docker network create --subnet 172.29.57.0/24 lidar`.
    const subnet = /`docker network create --subnet (\S+) lidar`/.exec(
      readFileSync(join(ROOT, 'README.md'), 'utf8'),
    )?.[1];
    expect(subnet, 'the README names the subnet of its network').toBeTruthy();
    await docker(['network', 'create', '--subnet', subnet as string, network]);
    words[onNetwork + 1] = network;
  }
  const imageAt = words.indexOf('lidar-sensor');
  expect(imageAt, `${line} runs the image lidar-sensor`).toBeGreaterThan(-1);
  words[imageAt] = image;
  await docker(['run', '-d', '--rm', '--name', container, ...words]);
  let url: string;
  if (published >= 0) url = `http://127.0.0.1:${await publishedPort(container)}`;
  else if (words[onNetwork + 1] === 'host') url = `http://${hostAddress}`;
  else if (ownNetwork) url = `http://${words[words.indexOf('--ip') + 1]}`;
  else url = `http://${await inspect(container, '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}')}`;
  return { container, url };
}

afterAll(async () => {
  if (!skip) await removeAll(prefix);
});

describe.skipIf(skip !== '')('the docker lines of the docs', () => {
  const lines = documentedDockerLines();
  const runs = lines.filter(({ line }) => line.startsWith('docker run '));

  it('finds them, and each is run here or covered by a deployment test that exists', () => {
    expect(runs.length).toBeGreaterThanOrEqual(5);
    const uncovered = lines
      .filter(({ line }) => !line.startsWith('docker run '))
      .filter(({ line }) => {
        const test = COVERED.find(([pattern]) => pattern.test(line))?.[1];
        return !test || !existsSync(join(ROOT, test.split(' ')[0]));
      });
    expect(uncovered).toEqual([]);
  });

  it.each(runs.map((r) => [r.page, r.line]))('%s: %s answers its first request', async (_page, line) => {
    const started = await runDocumented(line);
    try {
      const status = await waitFor(
        async () => (await fetch(`${started.url}/api/v1/sensor/metadata/sensor_info`)).status === 200,
        90_000,
        `${line} to answer`,
        500,
      );
      expect(status).toBe(true);
    } finally {
      await docker(['rm', '-f', '-v', started.container]).catch(() => '');
      await removeAll(prefix);
    }
  });
});
