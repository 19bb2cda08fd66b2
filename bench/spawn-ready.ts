/**
 * Spawns a server process and times it from spawn() to its first HTTP answer: the start-up figure
 * of the sensor and of its bare references use this one clock.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { stopProcess, track } from './processes.js';

export interface ReadyProcess {
  child: ChildProcess;
  pid: number;
  /** Milliseconds from spawn() to the first answer on the polled URL. */
  startupMs: number;
  /** Status of that first answer. */
  status: number;
}

export interface SpawnReadyOptions {
  args: string[];
  cwd?: string;
  /** Polled until it answers with one of `readyStatuses`. */
  url: string;
  readyStatuses?: readonly number[];
  timeoutMs: number;
}

export async function spawnReady(options: SpawnReadyOptions): Promise<ReadyProcess> {
  const readyStatuses = options.readyStatuses ?? [200];
  const startedAt = performance.now();
  const child = track(
    spawn(process.execPath, options.args, {
      stdio: ['ignore', 'ignore', 'pipe'],
      ...(options.cwd ? { cwd: options.cwd } : {}),
    }),
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    // Keep the tail only: a process that logs a lot must not grow the orchestrator's memory.
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const deadline = startedAt + options.timeoutMs;
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`process exited with ${child.exitCode}: ${stderr}`);
      try {
        const status = (await fetch(options.url)).status;
        if (readyStatuses.includes(status))
          return { child, pid: child.pid as number, startupMs: performance.now() - startedAt, status };
      } catch {
        // Not listening yet.
      }
      if (performance.now() > deadline)
        throw new Error(`${options.url} not answering after ${options.timeoutMs} ms: ${stderr}`);
      // A short poll interval: start-up time is one of the figures.
      await new Promise((r) => setTimeout(r, 2));
    }
  } catch (error) {
    await stopProcess(child);
    throw error;
  }
}
