/**
 * The fault plane control listener's address (`--control`, an option of the entry point; src/faults listens on it);
 * the loopback check is network/ipv4's `isLoopbackHost`.
 */

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
