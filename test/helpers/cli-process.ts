/**
 * Runs the real CLI (dist/cli.js) as a child process on a free port, like a user would, and talks
 * to it over HTTP. `npm test` builds dist/ first.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { waitFor } from './poll.js';

export const CLI_PATH = resolve(import.meta.dirname, '../../dist/cli.js');

/** Ports this process has handed out: the kernel may offer a closed one again before its user has bound it. */
const handedOut = new Set<number>();

/**
 * A port free now on `host`, never one this process handed out before (a test that asks twice, for the API
 * and the control plane, once got the same port for both and the unit refused to start).
 */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((resolvePort, reject) => {
      const server = createServer();
      server.once('error', reject);
      server.listen(0, host, () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolvePort(port));
      });
    });
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    return port;
  }
}

/** The options every unit started from a script or test gets: where it listens, its data, how much it logs. */
export function unitArgs(host: string, port: number, dataDir: string, logLevel: string): string[] {
  return ['--host', host, '--port', String(port), '--data-dir', dataDir, '--log-level', logLevel];
}

export interface CliProcess {
  child: ChildProcess;
  baseUrl: string;
  dataDir: string;
  host: string;
  port: number;
  /** Everything the process wrote so far. */
  output(): string;
  /** SIGTERM and wait for exit. */
  stop(): Promise<number | null>;
  /** SIGKILL (power cut) and wait for exit. */
  kill(): Promise<void>;
}

export interface StartCliOptions {
  dataDir?: string;
  host?: string;
  args?: string[];
  env?: Record<string, string>;
  /** How long to wait for the first 200 on sensor_info-or-config. */
  readyTimeoutMs?: number;
}

export async function startCli(options: StartCliOptions = {}): Promise<CliProcess> {
  const host = options.host ?? '127.0.0.1';
  const port = await freePort(host);
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'sensor-cli-'));
  let output = '';
  const child = spawn(process.execPath, [CLI_PATH, ...unitArgs(host, port, dataDir, 'warn'), ...(options.args ?? [])], {
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const baseUrl = `http://${host}:${port}`;
  try {
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`CLI exited with ${child.exitCode}: ${output}`);
        const res = await fetch(`${baseUrl}/api/v1/sensor/config`);
        return res.status === 200;
      },
      options.readyTimeoutMs ?? 15_000,
      'the CLI to answer',
    );
  } catch (error) {
    // A unit that never answered in time has no owner to stop it: it would outlive the test worker
    // (children outlive their parent), holding a port and CPU for the suites that follow.
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    throw error;
  }
  return {
    child,
    baseUrl,
    dataDir,
    host,
    port,
    output: () => output,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
    async kill() {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Runs the CLI to completion (for start-up errors, --help). */
export async function runCli(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [CLI_PATH, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  return { code, stdout, stderr };
}
