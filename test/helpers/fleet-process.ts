/**
 * `lidar-sensor fleet` as a child process of a test: started with the given options (plus the fleet
 * endpoint on a free port), ready once it logs its /metrics address, stopped with SIGTERM.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { CLI_PATH } from './cli-process.js';
import { waitFor } from './poll.js';

export interface FleetProcess {
  process: ChildProcess;
  /** The supervisor's endpoint (GET /metrics, GET /units), without a trailing slash. */
  endpoint: string;
  /** Everything the fleet wrote so far (its log and its units'). */
  output(): string;
  stop(): Promise<void>;
}

export async function startFleet(args: readonly string[]): Promise<FleetProcess> {
  const child = spawn(process.execPath, [CLI_PATH, 'fleet', ...args, '--metrics-port', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
  try {
    const metricsUrl = await waitFor(
      () => {
        if (child.exitCode !== null) throw new Error(`fleet exited with ${child.exitCode}: ${output}`);
        return /"metrics":"([^"]+)"/.exec(output)?.[1];
      },
      40_000,
      'the fleet to be ready',
    );
    return { process: child, endpoint: metricsUrl.replace(/\/metrics$/, ''), output: () => output, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
