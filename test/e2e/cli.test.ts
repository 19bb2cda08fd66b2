/** The real CLI: options, start-up errors, persistence across a restart and across kill -9. */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, startCli, type CliProcess } from '../helpers/cli-process.js';

const running: CliProcess[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((p) => p.kill()));
});
async function start(...args: Parameters<typeof startCli>) {
  const cli = await startCli(...args);
  running.push(cli);
  return cli;
}

const json = { 'content-type': 'application/json' };
interface SensorInfo {
  prod_sn: string;
  prod_line: string;
}

describe('command line', () => {
  it('--help lists every option with its environment variable', async () => {
    const { code, stdout } = await runCli(['--help']);
    expect(code).toBe(0);
    for (const word of [
      '--host',
      '--port',
      '--data-dir',
      '--product',
      '--serial',
      '--hal',
      '--log-level',
      'SENSOR_PORT',
      'SENSOR_HAL',
    ])
      expect(stdout).toContain(word);
  });

  it.each([
    [['--port', 'eighty'], /--port must be an integer/],
    [['--hal', 'vxworks'], /--hal must be one of sim, linux/],
    [['--bogus'], /Unknown option '--bogus'/],
    [['--log-level', 'loud'], /--log-level must be one of/],
  ])('%j is a usage error (exit 2): one line naming option and value, then where help is', async (args, message) => {
    const { code, stderr } = await runCli(args);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
    const lines = stderr.trim().split('\n');
    expect(lines).toEqual([expect.stringContaining(args.at(-1)!), 'see lidar-sensor --help']);
  });

  it('an unknown product is a start-up error listing the valid models', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sensor-cli-'));
    const { code, stderr } = await runCli(['--product', 'OS-9-7', '--data-dir', dataDir, '--port', '0']);
    expect(code).toBe(2);
    expect(stderr).toContain('unknown product model "OS-9-7"');
    expect(stderr).toContain('OS-1-128');
    expect(stderr).toContain('OS-2-32');
  });

  it('an invalid serial is a start-up error', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sensor-cli-'));
    const { code, stderr } = await runCli(['--serial', '99999999999999', '--data-dir', dataDir, '--port', '0']);
    expect(code).toBe(2);
    expect(stderr).toContain('invalid --serial');
  });

  it('takes options from SENSOR_* environment variables, flags winning', async () => {
    const cli = await start({
      env: { SENSOR_SERIAL: '122201000777', SENSOR_PRODUCT: 'OS-0-32', SENSOR_HAL: 'linux' },
      args: ['--hal', 'sim'],
    });
    const info = (await (await fetch(`${cli.baseUrl}/api/v1/sensor/metadata/sensor_info`)).json()) as SensorInfo;
    expect(info.prod_sn).toBe('122201000777');
    expect(info.prod_line).toBe('OS-0-32');
  });
});

describe('persistence', () => {
  it('keeps configuration and user data across a graceful restart, and drops unpersisted staged changes', async () => {
    const first = await start();
    expect(
      (
        await fetch(`${first.baseUrl}/api/v1/sensor/config`, {
          method: 'POST',
          headers: json,
          body: JSON.stringify({ lidar_mode: '512x20', udp_port_imu: 7777 }),
        })
      ).status,
    ).toBe(204);
    expect(
      (
        await fetch(`${first.baseUrl}/api/v1/sensor/config?reinit=false&persist=false`, {
          method: 'POST',
          headers: json,
          body: JSON.stringify({ udp_port_lidar: 1234 }),
        })
      ).status,
    ).toBe(204);
    expect(
      (
        await fetch(`${first.baseUrl}/api/v1/user/data?policy=keep_on_config_delete`, {
          method: 'PUT',
          body: '"hello"',
        })
      ).status,
    ).toBe(204);
    expect(await first.stop()).toBe(0);

    const second = await start({ dataDir: first.dataDir });
    const config = await (await fetch(`${second.baseUrl}/api/v1/sensor/config?staging=true`)).json();
    expect(config).toMatchObject({ lidar_mode: '512x20', udp_port_imu: 7777, udp_port_lidar: 7502 });
    expect(await (await fetch(`${second.baseUrl}/api/v1/user/data?include_metadata=1`)).json()).toEqual({
      value: 'hello',
      policy: 'keep_on_config_delete',
    });
  });

  it('keeps every acknowledged write when killed with SIGKILL right after the 204', async () => {
    const first = await start();
    expect(
      (
        await fetch(`${first.baseUrl}/api/v1/sensor/config/lidar_mode`, {
          method: 'PUT',
          headers: json,
          body: '"2048x10"',
        })
      ).status,
    ).toBe(204);
    expect((await fetch(`${first.baseUrl}/api/v1/user/data`, { method: 'PUT', body: '"acknowledged"' })).status).toBe(
      204,
    );
    await first.kill();

    const second = await start({ dataDir: first.dataDir });
    expect(await (await fetch(`${second.baseUrl}/api/v1/sensor/config/lidar_mode`)).json()).toBe('2048x10');
    expect(await (await fetch(`${second.baseUrl}/api/v1/user/data`)).json()).toBe('acknowledged');
  });

  it('keeps the serial number generated at first start', async () => {
    const first = await start();
    const info1 = (await (await fetch(`${first.baseUrl}/api/v1/sensor/metadata/sensor_info`)).json()) as SensorInfo;
    expect(info1.prod_sn).toMatch(/^[0-9]+$/);
    await first.kill();
    const second = await start({ dataDir: first.dataDir });
    const info2 = (await (await fetch(`${second.baseUrl}/api/v1/sensor/metadata/sensor_info`)).json()) as SensorInfo;
    expect(info2.prod_sn).toBe(info1.prod_sn);
  });
});
