/**
 * Every child process the benchmark starts is tracked here, so that none outlives the run: not on
 * success, not on an exception, not on Ctrl-C.
 */
import { fork, type ChildProcess, type ForkOptions } from 'node:child_process';

const live = new Set<ChildProcess>();
/** Set on Ctrl-C: from then on, anything still being started is stopped at once. */
let shuttingDown = false;

export function track<T extends ChildProcess>(child: T): T {
  if (shuttingDown) child.kill('SIGKILL');
  live.add(child);
  child.once('exit', () => live.delete(child));
  return child;
}

/** The tsx loader, so TypeScript children run like the orchestrator does (no separate build step). */
const TSX_LOADER = import.meta.resolve('tsx');

/** Forks a TypeScript module of bench/ as a child with an IPC channel. */
export function forkTs(moduleUrl: URL, args: string[] = [], options: ForkOptions = {}): ChildProcess {
  return track(
    fork(moduleUrl, args, {
      execArgv: ['--import', TSX_LOADER],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      ...options,
    }),
  );
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the process has exited. */
export async function stopProcess(child: ChildProcess, graceMs = 3000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

export async function stopAll(): Promise<void> {
  await Promise.all([...live].map((child) => stopProcess(child)));
}

/** Ctrl-C or a crash of the orchestrator still takes every child down with it; then `afterStop` (temp files). */
export function installCleanup(afterStop: () => void): void {
  const onSignal = (signal: NodeJS.Signals) => {
    shuttingDown = true;
    process.stderr.write(`\nbench: ${signal}, stopping ${live.size} child process(es)\n`);
    stopAll().finally(() => {
      afterStop();
      process.exit(130);
    });
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  // Last resort: synchronous, so it also runs on process.exit().
  process.once('exit', () => {
    for (const child of live) child.kill('SIGKILL');
  });
}

/** Messages from a forked child, one at a time, with a deadline. */
export function nextMessage<T>(
  child: ChildProcess,
  accept: (message: unknown) => message is T,
  timeoutMs: number,
  what: string,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => finish(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)), timeoutMs);
    const onMessage = (message: unknown) => {
      if (accept(message)) finish(undefined, message);
    };
    const onExit = (code: number | null) => finish(new Error(`child exited (${code}) while waiting for ${what}`));
    function finish(error: Error | undefined, message?: T) {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      if (error) reject(error);
      else resolve(message as T);
    }
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

export { setTimeout as sleep } from 'node:timers/promises';
