/**
 * Viewers of the live view that stop reading, against the built unit while it streams (issue 58): 20 connections
 * ask for /web/api/live-image and never read again. The unit cuts each once it has taken nothing for
 * `--stall-timeout`, and goes on serving viewers that read. The unit's RSS is printed; its figure over a minute
 * is `npm run bench`'s (bench/stalled-viewers.ts).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import type { Socket as UdpSocket } from 'node:dgram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliProcess, startCli } from '../helpers/cli-process.js';
import { waitFor } from '../helpers/poll.js';
import { streamToReceiver } from './browser.js';

const HOST = '127.0.0.58';
const VIEWERS = 20;

function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m);
  return line ? Number(line[1]) / 1024 : Number.NaN;
}

/** A connection that asks for the live view and then takes nothing more. */
function stalledViewer(port: number): Promise<Socket> {
  return new Promise((resolve) => {
    const socket = connect({ host: HOST, port });
    socket.on('error', () => undefined);
    socket.once('connect', () => {
      socket.write(`GET /web/api/live-image HTTP/1.1\r\nHost: ${HOST}\r\n\r\n`);
      socket.pause();
      resolve(socket);
    });
  });
}

/**
 * The local ports of the connections to `port` the kernel still holds open. A client that reads nothing learns of
 * the unit's reset only when it reads; its kernel knows at once.
 */
function establishedFrom(port: number): Set<number> {
  const lines = execFileSync('ss', ['-tnH', 'state', 'established', `( dport = :${port} )`], { encoding: 'utf8' });
  return new Set(
    lines.split('\n').flatMap((line) => {
      const local = line.trim().split(/\s+/)[2];
      return local ? [Number(local.slice(local.lastIndexOf(':') + 1))] : [];
    }),
  );
}

describe('stalled live viewers on a streaming unit', () => {
  let cli: CliProcess;
  let receiver: UdpSocket;

  beforeAll(async () => {
    cli = await startCli({ host: HOST, args: ['--stall-timeout', '1'] });
    receiver = await streamToReceiver(cli.baseUrl, HOST);
  }, 60_000);

  afterAll(async () => {
    receiver?.close();
    await cli?.stop();
  });

  it('are cut once they have taken nothing for --stall-timeout; a viewer that reads is served on', async () => {
    const startRss = rssMb(cli.child.pid!);
    const viewers = await Promise.all(Array.from({ length: VIEWERS }, () => stalledViewer(cli.port)));
    const before = establishedFrom(cli.port);
    expect(viewers.filter((socket) => before.has(socket.localPort!))).toHaveLength(VIEWERS);
    await waitFor(
      () => {
        const open = establishedFrom(cli.port);
        return viewers.every((socket) => !open.has(socket.localPort!));
      },
      60_000,
      `all ${VIEWERS} stalled viewers to be cut`,
    );
    for (const socket of viewers) socket.destroy();
    console.log(
      `unit RSS ${startRss.toFixed(1)} MB before ${VIEWERS} stalled viewers, ${rssMb(cli.child.pid!).toFixed(1)} MB once they were cut`,
    );

    const reader = await fetch(`${cli.baseUrl}/web/api/live-image`);
    const body = reader.body!.getReader();
    let text = '';
    while (!text.includes('event: frame')) text += new TextDecoder().decode((await body.read()).value);
    await body.cancel();
  }, 90_000);
});
