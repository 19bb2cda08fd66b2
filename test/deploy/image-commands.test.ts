/**
 * The commands the deployment files give the image, run here as written (from the repository root,
 * where the image's WORKDIR has the same dist/): the StatefulSet's serial-from-ordinal start, the
 * Dockerfile/compose health check following the port the unit really listens on, the example client.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { argsAfterCli, healthTarget } from '../../src/main/health/health-target.js';
import { freePort } from '../helpers/cli-process.js';
import { dockerfileHealthcheck, manifestContainer, ROOT } from './deploy-files.js';
import { waitFor } from '../helpers/poll.js';

const HOST = '127.0.15.60';
const started: ChildProcess[] = [];
const dirs: string[] = [];

/** The environment without the test runner's own SENSOR_* settings. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SENSOR_')));
  return { ...env, ...extra };
}

function run(
  argv: string[],
  env: NodeJS.ProcessEnv,
): { child: ChildProcess; output: () => string; exit: Promise<number | null> } {
  const child = spawn(argv[0], argv.slice(1), { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  started.push(child);
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exit };
}

async function healthcheck(pid: number, env: Record<string, string>): Promise<number | null> {
  const [command, ...args] = dockerfileHealthcheck();
  return run(
    [command === 'node' ? process.execPath : command, ...args],
    cleanEnv({ HEALTHCHECK_PID: String(pid), ...env }),
  ).exit;
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

afterAll(async () => {
  await Promise.all(started.map(stop));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('health check target', () => {
  it("follows the unit's own options: flags over SENSOR_* over defaults; wildcard via loopback", () => {
    expect(healthTarget(['--port', '8081'], { SENSOR_PORT: '80' }).url).toBe(
      'http://127.0.0.1:8081/api/v1/sensor/metadata/sensor_info',
    );
    expect(healthTarget([], { SENSOR_PORT: '8082', SENSOR_HOST: '0.0.0.0' }).url).toBe(
      'http://127.0.0.1:8082/api/v1/sensor/metadata/sensor_info',
    );
    expect(healthTarget(['--host', '10.0.0.5'], { SENSOR_PORT: '80' }).url).toBe(
      'http://10.0.0.5:80/api/v1/sensor/metadata/sensor_info',
    );
    expect(healthTarget(['fleet', '--count', '4', '--metrics-port', '9500'], {})).toEqual({
      kind: 'fleet',
      url: 'http://127.0.0.1:9500/units',
    });
  });

  it('finds the options after cli.js in a /proc cmdline', () => {
    const cmdline = (...argv: string[]) => `${argv.join('\0')}\0`;
    expect(argsAfterCli(cmdline('node', 'dist/cli.js', '--port', '8081'))).toEqual(['--port', '8081']);
    expect(argsAfterCli(cmdline('/usr/bin/node', '/app/dist/cli.js'))).toEqual([]);
    expect(argsAfterCli(cmdline('/sbin/tini', '--', 'sh'))).toBeNull();
  });
});

describe("the image's commands", () => {
  it('starts a StatefulSet pod with the serial of its ordinal, healthy on its port; the client receives its data', async () => {
    const container = manifestContainer('statefulset.yaml', 'StatefulSet');
    const manifestEnv = Object.fromEntries(
      (container.env ?? []).filter((e) => e.value !== undefined).map((e) => [e.name, e.value as string]),
    );
    const dataDir = mkdtempSync(join(tmpdir(), 'pod-'));
    dirs.push(dataDir);
    const port = await freePort(HOST);
    // The manifest's environment, with a loopback address, a free port and a temporary volume for this machine.
    const env = cleanEnv({
      ...manifestEnv,
      POD_NAME: 'lidar-sensor-3',
      SENSOR_HOST: HOST,
      SENSOR_PORT: String(port),
      SENSOR_DATA_DIR: dataDir,
      SENSOR_LOG_LEVEL: 'warn',
    });
    const command = container.command ?? [];
    const pod = run([...command, ...(container.args ?? [])], {
      ...env,
      PATH: `${join(process.execPath, '..')}:${env.PATH ?? ''}`,
    });
    const url = `http://${HOST}:${port}`;
    const info = await waitFor(
      async () => {
        if (pod.child.exitCode !== null) throw new Error(`the pod command exited: ${pod.output()}`);
        const response = await fetch(`${url}/api/v1/sensor/metadata/sensor_info`);
        return response.ok ? ((await response.json()) as { prod_sn: string }) : undefined;
      },
      20_000,
      "the pod's unit",
    );
    expect(info.prod_sn).toBe(String(BigInt(manifestEnv.SERIAL_BASE) + 3n));

    // `sh -c 'exec node …'`: the unit is the pod's process itself, as PID 1 would be.
    expect(await healthcheck(pod.child.pid as number, env as Record<string, string>)).toBe(0);

    const client = manifestContainer('example-client.yaml', 'Deployment');
    const [lidarPort, imuPort] = [await freePort(), await freePort()];
    const clientRun = run(
      [process.execPath, ...(client.command ?? []).slice(1), url],
      cleanEnv({ UDP_PORT_LIDAR: String(lidarPort), UDP_PORT_IMU: String(imuPort), REPORT_EVERY_MS: '300' }),
    );
    await waitFor(
      () => new RegExp(`${HOST.replace(/\./g, '\\.')} lidar [1-9]\\d*/s imu [1-9]\\d*/s`).test(clientRun.output()),
      20_000,
      'the client to receive lidar and IMU data',
    );
    await stop(clientRun.child);
  });

  it("health check follows `docker run IMAGE --port N` over the image's SENSOR_PORT=80, and fails once the unit is gone", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'container-'));
    dirs.push(dataDir);
    const port = await freePort('127.0.15.61');
    const unit = run(
      [process.execPath, 'dist/cli.js', '--host', '127.0.15.61', '--port', String(port), '--log-level', 'warn'],
      cleanEnv({ SENSOR_DATA_DIR: dataDir, SENSOR_PORT: '80' }),
    );
    await waitFor(
      async () => (await fetch(`http://127.0.15.61:${port}/api/v1/sensor/metadata/sensor_info`)).ok,
      20_000,
      'the unit',
    );
    const imageEnv = { SENSOR_PORT: '80', SENSOR_HOST: '0.0.0.0' };
    expect(await healthcheck(unit.child.pid as number, imageEnv)).toBe(0);
    const pid = unit.child.pid as number;
    await stop(unit.child);
    expect(await healthcheck(pid, imageEnv)).toBe(1);
  });
});
