/**
 * Runs one of the system's tools (ip, chronyc, pmc, …) without a shell, bounded in time, and
 * returns what it printed. A failure names the command and quotes its error output.
 */
import { execFile } from 'node:child_process';

export class CommandError extends Error {
  constructor(
    readonly command: readonly string[],
    readonly stderr: string,
    message: string,
  ) {
    super(message);
  }
}

export interface CommandOptions {
  /** Default 5 s. */
  timeoutMs?: number;
}

export function runCommand(command: readonly string[], options: CommandOptions = {}): Promise<string> {
  const [file, ...args] = command;
  return new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      { timeout: options.timeoutMs ?? 5000, maxBuffer: 4 * 1024 * 1024, encoding: 'utf8' },
      (error, stdout, stderr) => {
        if (!error) return resolve(stdout);
        const reason =
          (error as NodeJS.ErrnoException).code === 'ENOENT'
            ? `${file} is not installed`
            : stderr.trim() || error.message;
        reject(new CommandError(command, stderr, `${command.join(' ')}: ${reason}`));
      },
    );
  });
}
