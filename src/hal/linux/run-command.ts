/**
 * Runs one of the system's tools (ip, chronyc, pmc, …) without a shell, bounded in time, and
 * returns what it printed. A failure names the command and quotes its error output.
 *
 * The bound is hard: at its deadline the caller gets its error at once, and the child is ended apart
 * from that answer. SIGTERM first; a child that ignores it (pmc blocked in a send to a ptp4l that
 * never reads its socket restarts the send after its own SIGTERM handler ran) gets SIGKILL after a
 * grace period. A caller's signal (the unit shutting down) ends the child at once (SIGTERM, then SIGKILL
 * without grace), and so does the server's exit for a command that takes one: no reader outlives the unit
 * to sit on a daemon's socket.
 */
import { type ChildProcess, spawn } from 'node:child_process';

export class CommandError extends Error {
  constructor(
    readonly command: readonly string[],
    readonly stderr: string,
    message: string,
    /** The command did not finish in time (or was cancelled) and was ended. */
    readonly ended = false,
  ) {
    super(message);
  }
}

export interface CommandOptions {
  /** Default 5 s. */
  timeoutMs?: number;
  /** How long a child that ignores SIGTERM at its deadline lives on before SIGKILL; default 1 s. */
  killGraceMs?: number;
  /** Cancels the command: the caller's error at once, the child ended as at the deadline. */
  signal?: AbortSignal;
}

const MAX_OUTPUT_BYTES = 4 * 1024 * 1024;

/** Cancellable children still running: killed when the server exits, whatever awaited them. */
const running = new Set<ChildProcess>();
let exitHookInstalled = false;

function killRunningAtExit(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const child of running) child.kill('SIGKILL');
  });
}

/** SIGTERM now, SIGKILL after `graceMs` unless it exited. */
function end(child: ChildProcess, graceMs: number): void {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const kill = setTimeout(() => child.kill('SIGKILL'), graceMs);
  child.once('exit', () => clearTimeout(kill));
}

export function runCommand(command: readonly string[], options: CommandOptions = {}): Promise<string> {
  const [file, ...args] = command;
  const timeoutMs = options.timeoutMs ?? 5000;
  const graceMs = options.killGraceMs ?? 1000;
  const fail = (reason: string, stderr = '', ended = false) =>
    new CommandError(command, stderr, `${command.join(' ')}: ${reason}`, ended);
  if (options.signal?.aborted) return Promise.reject(fail('cancelled before it started', '', true));
  killRunningAtExit();
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    // Only a cancellable command dies with the server: a firmware or power hook runs to its end.
    if (options.signal) {
      running.add(child);
      child.once('exit', () => running.delete(child));
    }
    let stdout = '';
    let stderr = '';
    let settled = false;
    const settle = (error: CommandError | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      options.signal?.removeEventListener('abort', onAbort);
      if (error) reject(error);
      else resolve(stdout);
    };
    const endWith = (reason: string, grace = graceMs) => {
      settle(fail(reason, stderr, true));
      end(child, grace);
    };
    // A cancelled command (the unit is stopping) gets no grace: its caller is gone and the stop waits for no one.
    // A caller's own deadline (AbortSignal.timeout) is a timeout like ours.
    const onAbort = () => {
      const reason: unknown = options.signal?.reason;
      const timedOut = reason instanceof Error && reason.name === 'TimeoutError';
      endWith(`cancelled: ${reason instanceof Error ? reason.message : String(reason)}; ended`, timedOut ? graceMs : 0);
    };
    const deadline = setTimeout(() => endWith(`did not finish within ${timeoutMs} ms; ended`), timeoutMs);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      if (stdout.length > MAX_OUTPUT_BYTES) endWith(`printed more than ${MAX_OUTPUT_BYTES} bytes; ended`);
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      if (stderr.length < MAX_OUTPUT_BYTES) stderr += chunk;
    });
    child.once('error', (error: NodeJS.ErrnoException) => {
      running.delete(child);
      settle(fail(error.code === 'ENOENT' ? `${file} is not installed` : error.message, stderr));
    });
    child.once('close', (code, signal) => {
      if (code === 0) return settle(undefined);
      settle(fail(stderr.trim() || (signal ? `ended by ${signal}` : `exited with status ${code}`), stderr));
    });
  });
}
