/**
 * The live view's stream holds a bounded number of bytes for a viewer that does not keep up (issue 58): real
 * sockets that stop reading, pictures of the size a 2048-column unit sends, and the server side's own buffers
 * read back. A viewer that reads again gets word of what it missed and the newest picture, not the backlog.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { LiveImageHub, VIEWER_BUFFER_BYTES } from '../../src/routes/web/live-image.js';
import type { PreviewFrame } from '../../src/udp/index.js';
import { waitFor } from '../helpers/poll.js';

/** A picture as the preview tap makes it for 2048 columns and 128 channels (every 4th column). */
function picture(packetsSent: number): PreviewFrame {
  const width = 512;
  const height = 128;
  const range = new Uint8Array(width * height).map((_, i) => (i * 7 + packetsSent) % 256);
  return {
    initId: 1,
    columnsPerFrame: 2048,
    width,
    height,
    rangeScaleMm: 120_000,
    packetsSent,
    range,
    reflectivity: range,
  };
}

interface Rig {
  server: Server;
  url: { host: string; port: number };
  /** The server's side of each viewer, in the order they connected. */
  responses: ServerResponse[];
  send(frame: PreviewFrame): void;
  hub: LiveImageHub;
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function rig(): Promise<Rig> {
  let emit: ((frame: PreviewFrame | null) => void) | undefined;
  const hub = new LiveImageHub({
    watchPreview: (listener) => {
      emit = listener;
      return () => (emit = undefined);
    },
  });
  const responses: ServerResponse[] = [];
  const server = createServer((_request, res) => {
    responses.push(res);
    hub.add(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        hub.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const address = server.address() as { port: number };
  return {
    server,
    url: { host: '127.0.0.1', port: address.port },
    responses,
    hub,
    send: (frame) => emit?.(frame),
  };
}

/** A viewer that asks for the stream and then takes nothing more: a laptop gone to sleep with the page open. */
async function stalledViewer(r: Rig): Promise<Socket> {
  const socket = connect(r.url);
  cleanups.push(() => void socket.destroy());
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  socket.write(`GET /web/api/live-image HTTP/1.1\r\nHost: ${r.url.host}\r\n\r\n`);
  socket.pause();
  return socket;
}

const messageBytes = (frame: PreviewFrame) =>
  Buffer.byteLength(
    `event: frame\ndata: ${JSON.stringify({ ...frame, range: Buffer.from(frame.range).toString('base64'), reflectivity: Buffer.from(frame.reflectivity).toString('base64') })}\n\n`,
  );

describe('the live view holds a bounded number of bytes per viewer', () => {
  it('20 viewers that stop reading: each holds at most the bound and one picture, however many pictures follow', async () => {
    const r = await rig();
    for (let i = 0; i < 20; i++) await stalledViewer(r);
    await waitFor(() => r.responses.length === 20 && r.hub.viewerCount === 20, 10_000, 'the viewers to connect');
    const before = process.memoryUsage();
    // 25 seconds of pictures of 2048 columns (four a second): about 17 MB per viewer if every picture were kept.
    for (let n = 1; n <= 100; n++) r.send(picture(n));
    const after = process.memoryUsage();
    const held = r.responses.map((res) => res.writableLength);
    const bound = VIEWER_BUFFER_BYTES + messageBytes(picture(1));
    console.log(
      `20 stalled viewers, 100 pictures of ${messageBytes(picture(1))} bytes: the server holds ${Math.max(...held)} bytes for a viewer at most ` +
        `(bound ${bound}); this process's RSS ${((after.rss - before.rss) / 2 ** 20).toFixed(1)} MB more, external ${((after.external - before.external) / 2 ** 20).toFixed(1)} MB more`,
    );
    for (const bytes of held) expect(bytes).toBeLessThanOrEqual(bound);
  });

  it('a viewer that reads again is told how many it missed and gets the newest picture, not the backlog', async () => {
    const r = await rig();
    const socket = await stalledViewer(r);
    await waitFor(() => r.hub.viewerCount === 1, 10_000, 'the viewer to connect');
    for (let n = 1; n <= 100; n++) r.send(picture(n));
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.resume();
    await waitFor(() => text.includes('"packetsSent":100,'), 10_000, 'the newest picture');
    const frames = [...text.matchAll(/"packetsSent":(\d+),/g)].map((m) => Number(m[1]));
    const dropped = [...text.matchAll(/event: dropped\ndata: \{"messages":(\d+)\}/g)].map((m) => Number(m[1]));
    expect(frames.length).toBeLessThan(100);
    expect(frames.at(-1)).toBe(100);
    // Every picture is either received or counted as missed.
    expect(frames.length + dropped.reduce((a, b) => a + b, 0)).toBe(100);
    expect([...frames].sort((a, b) => a - b)).toEqual(frames);
  });
});
