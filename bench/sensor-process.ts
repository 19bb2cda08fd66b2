/**
 * The real, built sensor (dist/cli.js) as a child process on a loopback address, the way a user
 * starts it. Unlike the test helper's startCli, the child is tracked from the moment it is spawned
 * (so an interrupted start-up cannot leak it) and the start-up time is measured precisely.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { CLI_PATH, freePort } from '../test/helpers/cli-process.js';
import { stopProcess } from './processes.js';
import { spawnReady } from './spawn-ready.js';

export interface SensorProcess {
  child: ChildProcess;
  pid: number;
  host: string;
  port: number;
  baseUrl: string;
  /** Milliseconds from spawn() to the first 200 on `readyPath`. */
  startupMs: number;
  /** Status of `readyPath` when it answered (404 = that route does not exist yet). */
  readyStatus: number;
  stop(): Promise<void>;
}

export interface SensorOptions {
  host: string;
  dataDir: string;
  product?: string;
  /** Path polled for readiness; any answer other than a connection error ends the wait. */
  readyPath?: string;
  readyTimeoutMs?: number;
  /** More command-line options (e.g. `--control`). */
  args?: string[];
}

export const SENSOR_INFO_PATH = '/api/v1/sensor/metadata/sensor_info';
export const CONFIG_PATH = '/api/v1/sensor/config';

/** Only loopback: the benchmark never opens a socket anywhere else. */
function assertLoopback(host: string): void {
  if (!/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)) throw new Error(`bench: refusing non-loopback address ${host}`);
}

export async function spawnSensor(options: SensorOptions): Promise<SensorProcess> {
  assertLoopback(options.host);
  if (!existsSync(CLI_PATH)) throw new Error(`${CLI_PATH} is missing: run npm run build`);
  mkdirSync(options.dataDir, { recursive: true });
  const port = await freePort(options.host);
  const baseUrl = `http://${options.host}:${port}`;
  const ready = await spawnReady({
    args: [
      CLI_PATH,
      '--host',
      options.host,
      '--port',
      String(port),
      '--data-dir',
      options.dataDir,
      '--log-level',
      'warn',
      '--product',
      options.product ?? 'OS-1-128',
      ...(options.args ?? []),
    ],
    url: baseUrl + (options.readyPath ?? CONFIG_PATH),
    // 404: the server is up but the polled route does not exist (yet); the caller reports that.
    readyStatuses: [200, 404],
    timeoutMs: options.readyTimeoutMs ?? 20_000,
  });
  return {
    ...ready,
    host: options.host,
    port,
    baseUrl,
    readyStatus: ready.status,
    stop: () => stopProcess(ready.child),
  };
}
