/**
 * HTTP over a raw socket, for what a well-behaved client library will not do: stall mid-request,
 * send malformed bytes, keep a connection open. Parses one response at a time.
 */
import { connect, type Socket } from 'node:net';

export interface RawResponse {
  /** The status line and header lines as received (names in their case and order), without the blank line. */
  head: string;
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface RawConnection {
  socket: Socket;
  write(data: string | Buffer): void;
  /** The next complete response on this connection (undefined if the socket closes first). */
  response(timeoutMs?: number): Promise<RawResponse | undefined>;
  /** Resolves when the server has closed the connection. */
  closed: Promise<void>;
  isClosed(): boolean;
  /** Bytes received and not yet parsed as a response, as text. */
  unparsed(): string;
  destroy(): void;
}

/** `localAddress` (e.g. 127.0.0.2) makes the connection come from another loopback peer. */
export async function rawConnect(port: number, host = '127.0.0.1', localAddress?: string): Promise<RawConnection> {
  const socket = connect({ port, host, localAddress });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.on('error', () => undefined);
  let buffer = Buffer.alloc(0);
  let closed = false;
  let wake: () => void = () => undefined;
  socket.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    wake();
  });
  const closedPromise = new Promise<void>((resolve) =>
    socket.once('close', () => {
      closed = true;
      wake();
      resolve();
    }),
  );
  const tryParse = (): RawResponse | undefined => {
    const end = buffer.indexOf('\r\n\r\n');
    if (end < 0) return undefined;
    const head = buffer.subarray(0, end).toString('latin1');
    const lines = head.split('\r\n');
    const status = Number(lines[0].split(' ')[1]);
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    if (status === 100) {
      buffer = buffer.subarray(end + 4);
      return tryParse();
    }
    // 204 and 304 never have a body (RFC 9110), whatever the headers say.
    const length =
      status === 204 || status === 304
        ? 0
        : headers['content-length'] !== undefined
          ? Number(headers['content-length'])
          : undefined;
    const bodyStart = end + 4;
    if (length !== undefined && buffer.length < bodyStart + length) return undefined;
    if (length === undefined && !closed) return undefined;
    const bodyEnd = length === undefined ? buffer.length : bodyStart + length;
    const body = buffer.subarray(bodyStart, bodyEnd).toString('utf8');
    buffer = buffer.subarray(bodyEnd);
    return { head, status, headers, body };
  };
  return {
    socket,
    write: (data) => socket.write(data),
    response(timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no response within ${timeoutMs} ms`)), timeoutMs);
        const check = () => {
          const parsed = tryParse();
          if (parsed || closed) {
            clearTimeout(timer);
            wake = () => undefined;
            resolve(parsed);
          }
        };
        wake = check;
        check();
      });
    },
    closed: closedPromise,
    isClosed: () => closed,
    unparsed: () => buffer.toString('latin1'),
    destroy: () => socket.destroy(),
  };
}

/** Resolves true if the connection closes within `ms`, false if it is still open then. */
export async function closesWithin(connection: RawConnection, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  const result = await Promise.race([connection.closed.then(() => true), timeout]);
  clearTimeout(timer);
  return result;
}
