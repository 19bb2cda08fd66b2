/**
 * The linux HAL's restart, through the real CLI: 204, then the process exits with the documented
 * status 75 for the service manager (deploy/lidar-sensor.service) to start it again — which this
 * test does, like systemd would, on the same data directory.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RESTART_EXIT_CODE } from '../../src/hal/power.js';
import { startCli, type CliProcess } from '../helpers/cli-process.js';
import { removeDir } from '../helpers/test-sensor.js';

const running: CliProcess[] = [];
afterEach(async () => {
  for (const p of running.splice(0)) await p.kill();
});

describe('restart on the linux HAL', () => {
  it('answers 204, exits with status 75, and comes back with the persisted configuration', async () => {
    // A real unit starts only with factory data: the first start programs it (--serial), as a factory would.
    const first = await startCli({ args: ['--hal', 'linux', '--serial', '122201000123'] });
    running.push(first);
    try {
      const post = await fetch(`${first.baseUrl}/api/v1/sensor/config`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ udp_port_lidar: 7600 }),
      });
      expect(post.status).toBe(204);
      const staged = await fetch(`${first.baseUrl}/api/v1/sensor/config?staging=true&reinit=false&persist=false`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ udp_port_imu: 7700 }),
      });
      expect(staged.status).toBe(204);
      const initBefore = (
        (await (await fetch(`${first.baseUrl}/api/v1/sensor/metadata/sensor_info`)).json()) as {
          initialization_id: number;
        }
      ).initialization_id;
      const exited = new Promise<number | null>((r) => first.child.once('exit', (code) => r(code)));
      const res = await fetch(`${first.baseUrl}/api/v1/system/restart`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status).toBe(204);
      expect(await exited).toBe(RESTART_EXIT_CODE);

      const second = await startCli({ dataDir: first.dataDir, args: ['--hal', 'linux'] });
      running.push(second);
      const config = await (await fetch(`${second.baseUrl}/api/v1/sensor/config?staging=true`)).json();
      expect(config).toMatchObject({ udp_port_lidar: 7600, udp_port_imu: 7503 });
      const info = (await (await fetch(`${second.baseUrl}/api/v1/sensor/metadata/sensor_info`)).json()) as {
        initialization_id: number;
      };
      expect(info.initialization_id).not.toBe(initBefore);
    } finally {
      for (const p of running.splice(0)) await p.kill();
      removeDir(first.dataDir);
    }
  });

  it('ships a systemd unit that restarts the service on that status', () => {
    const unit = readFileSync(resolve(import.meta.dirname, '../../deploy/lidar-sensor.service'), 'utf8');
    expect(unit).toMatch(/^Restart=always$/m);
    expect(unit).toMatch(new RegExp(`^RestartForceExitStatus=${RESTART_EXIT_CODE}$`, 'm'));
    expect(unit).toMatch(/^ExecStart=.*--hal linux/m);
  });
});
