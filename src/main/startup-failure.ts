/**
 * Start-up failures a user can fix, as one line saying what happened and what to do (exit 2),
 * instead of a stack trace. Anything not recognised here is a real fault and keeps its stack.
 */
import type { CliOptions, OptionsOf } from './cli-options.js';
import { DataDirInUseError, diskIsFull } from '../store/index.js';

interface SystemError {
  code?: string;
  syscall?: string;
  path?: string;
  message?: string;
  /** The port of a failed listen (Node sets it on EADDRINUSE and the like). */
  port?: number;
}

export function describeStartupFailure(
  error: unknown,
  options: Pick<OptionsOf<'listen'>, 'host' | 'port'> &
    Pick<CliOptions, 'dataDir'> & { control?: CliOptions['control'] },
): string | undefined {
  if (error instanceof DataDirInUseError) return error.message;
  const e = (error ?? {}) as SystemError;
  // SQLite reports a disk with no room for its shared-memory file as an I/O error.
  if (e.code === 'SQLITE_FULL' || (e.code?.startsWith('SQLITE_IOERR') && diskIsFull(options.dataDir)))
    return `no space left for the data directory ${options.dataDir} (${e.code}); free some space or choose another --data-dir`;
  const where = `${options.host}:${options.port}`;
  const listening = e.syscall === 'listen' || e.syscall === 'bind';
  switch (e.code) {
    case 'EADDRINUSE':
      // The fault-injection control listener is a second port: name the option that chose the busy one.
      if (options.control && e.port === options.control.port && e.port !== options.port)
        return `port ${options.control.port} on ${options.control.host} (--control) is already in use (another server?); stop it or choose another --control address`;
      return `port ${options.port} on ${options.host} is already in use (another server?); stop it or choose another --port`;
    case 'EADDRNOTAVAIL':
      return `cannot listen on ${where}: ${options.host} is not an address of this machine; choose another --host`;
    case 'EACCES':
    case 'EPERM':
      if (listening) {
        return (
          `no permission to listen on ${where}: ports below 1024 need root or the cap_net_bind_service capability ` +
          '(e.g. `sudo setcap cap_net_bind_service=+ep "$(readlink -f "$(command -v node)")"`), or use a --port of 1024 or more'
        );
      }
      return `no permission to use the data directory ${e.path ?? options.dataDir}; make it writable for this user or choose another --data-dir`;
    case 'EROFS':
      return `the data directory ${e.path ?? options.dataDir} is on a read-only file system; choose another --data-dir`;
    case 'ENOTDIR':
    case 'EEXIST':
      return `the data directory ${options.dataDir} cannot be created: ${e.path ?? 'a part of its path'} is a file, not a directory; choose another --data-dir`;
    case 'ENOSPC':
      return `no space left for the data directory ${options.dataDir}; free some space or choose another --data-dir`;
    case 'SQLITE_CANTOPEN':
    case 'SQLITE_READONLY':
    case 'SQLITE_PERM':
      return `cannot open the database in the data directory ${options.dataDir} (${e.message ?? e.code}); make the directory writable for this user or choose another --data-dir`;
    default:
      return undefined;
  }
}
