/**
 * The control listener's address (`--control`): parsing and the loopback check.
 */
import { isIP } from 'node:net';

export interface ControlAddress {
  host: string;
  port: number;
}

/** Parses `HOST:PORT`, `[V6]:PORT` or `PORT` (loopback). Returns an error message for anything else. */
export function parseControlAddress(text: string): ControlAddress | string {
  const match = /^(?:\[([^\]]+)\]|([^:]+)):(\d+)$/.exec(text) ?? /^()()(\d+)$/.exec(text);
  if (!match) return `must be HOST:PORT (e.g. 127.0.0.1:8081); got ${JSON.stringify(text)}`;
  const host = match[1] || match[2] || '127.0.0.1';
  const port = Number(match[3]);
  if (!Number.isInteger(port) || port > 65535) return `port must be 0..65535; got ${match[3]}`;
  return { host, port };
}

/** Loopback only: 127.0.0.0/8, ::1, localhost. */
export function isLoopbackHost(host: string): boolean {
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6) return host === '::1' || host === '0:0:0:0:0:0:0:1' || host.startsWith('::ffff:127.');
  return false;
}
