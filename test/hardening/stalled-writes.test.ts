/**
 * src/routes/http/stalled-writes.ts on real sockets: a client that takes none of the bytes waiting for it is cut
 * once the stall time has passed with no byte sent; one that keeps taking bytes, however slowly, is not. Time is
 * stepped through `sweep(now)`, not waited for.
 */
import { createServer, type Server } from 'node:net';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { StalledWriteWatch } from '../../src/routes/http/stalled-writes.js';
import { waitFor } from '../helpers/poll.js';

const STALL_MS = 10_000;
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** A server that writes to each client until the socket's own buffer holds bytes (the kernel's are full). */
async function pair(): Promise<{ client: Socket; served: Socket; watch: StalledWriteWatch }> {
  const sockets = new Set<Socket>();
  let served!: Socket;
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    served = socket;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = connect({ port: (server.address() as { port: number }).port, host: '127.0.0.1' });
  client.pause();
  await waitFor(() => served !== undefined, 10_000, 'the connection');
  const watch = new StalledWriteWatch(() => sockets, STALL_MS);
  cleanups.push(() => {
    watch.close();
    client.destroy();
    served.destroy();
    server.close();
  });
  const chunk = Buffer.alloc(1024 * 1024);
  while (served.writableLength === 0) served.write(chunk);
  return { client, served, watch };
}

describe('a connection whose client takes no bytes', () => {
  it('is cut once the stall time has passed without a byte sent', async () => {
    const { client, served, watch } = await pair();
    const closed = new Promise<void>((resolve) => client.once('close', () => resolve()));
    client.on('error', () => undefined);
    const t0 = 1_000_000;
    watch.sweep(t0);
    watch.sweep(t0 + STALL_MS - 1);
    expect(served.destroyed).toBe(false);
    watch.sweep(t0 + STALL_MS);
    expect(served.destroyed).toBe(true);
    expect(watch.cut).toBe(1);
    client.resume();
    await closed;
  });

  it('is not cut while its client keeps taking bytes, however slowly', async () => {
    const { client, served, watch } = await pair();
    const t0 = 1_000_000;
    watch.sweep(t0);
    // The client reads a little: some of the waiting bytes leave the server's socket.
    const sentBefore = served.bytesWritten - served.writableLength;
    client.resume();
    await waitFor(() => served.bytesWritten - served.writableLength > sentBefore, 10_000, 'bytes to leave');
    client.pause();
    while (served.writableLength === 0) served.write(Buffer.alloc(1024 * 1024));
    watch.sweep(t0 + STALL_MS);
    expect(served.destroyed).toBe(false);
    watch.sweep(t0 + 2 * STALL_MS - 1);
    expect(served.destroyed).toBe(false);
    watch.sweep(t0 + 2 * STALL_MS);
    expect(served.destroyed).toBe(true);
  });
});
