/**
 * The arm64 image, built with `docker build --platform linux/arm64` from the same Dockerfile: an arm64 image whose
 * unit starts under emulation, answers on port 80 through a published port and stops cleanly.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { waitFor } from '../../helpers/poll.js';
import { docker, inspect, PREFIX, publishedPort, removeAll } from '../docker.js';

const skip = inject('dockerSkip');
const image = inject('image');
const name = `${PREFIX}-arm64-run`;

describe.skipIf(skip !== '')('the arm64 container image', () => {
  beforeAll(() => removeAll(name));
  afterAll(() => removeAll(name));

  it('is an arm64 image whose unit runs the arm64 Node.js and answers on port 80', async () => {
    expect(await docker(['image', 'inspect', '--format', '{{.Os}}/{{.Architecture}}', image])).toBe('linux/arm64');
    await docker(['run', '-d', '--name', name, '-p', '127.0.0.1::80', image]);
    const info = await waitFor(
      async () => {
        const response = await fetch(
          `http://127.0.0.1:${await publishedPort(name)}/api/v1/sensor/metadata/sensor_info`,
          {
            signal: AbortSignal.timeout(10_000),
          },
        ).catch(() => undefined);
        return response?.status === 200 ? ((await response.json()) as { status: string }) : undefined;
      },
      300_000,
      'the arm64 unit to answer',
    );
    expect(info.status).toBe('RUNNING');
    expect(await docker(['exec', name, 'node', '-p', 'process.arch'])).toBe('arm64');
    expect(await docker(['exec', name, 'uname', '-m'])).toBe('aarch64');
    console.log(`arm64 image: Node.js ${await docker(['exec', name, 'node', '-p', 'process.version'])}`);
  });

  it('stops cleanly on docker stop: exit status 0', async () => {
    await docker(['stop', '--time', '60', name]);
    expect(await inspect(name, '{{.State.ExitCode}}')).toBe('0');
  });
});
