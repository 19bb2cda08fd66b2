/**
 * A UDP listener on a loopback address that keeps every datagram with its source, for tests that
 * check what the emitter actually sent.
 */
import dgram from 'node:dgram';
import { waitFor } from '../../helpers/poll.js';

export interface Datagram {
  data: Buffer;
  from: { address: string; port: number };
  /** Arrival order across all captures of a test (shared counter), to check interleaving. */
  seq: number;
}

let arrivals = 0;

export class UdpCapture {
  readonly datagrams: Datagram[] = [];
  private constructor(private readonly socket: dgram.Socket) {
    socket.on('message', (data, rinfo) => {
      this.datagrams.push({ data, from: { address: rinfo.address, port: rinfo.port }, seq: arrivals++ });
    });
  }

  static async listen(address = '127.0.0.1', port = 0): Promise<UdpCapture> {
    const socket = dgram.createSocket('udp4');
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(port, address, () => {
        socket.off('error', reject);
        resolve();
      });
    });
    // Room for a few frames of the biggest packets, so a busy test machine does not drop any.
    socket.setRecvBufferSize(8 * 1024 * 1024);
    return new UdpCapture(socket);
  }

  get port(): number {
    return this.socket.address().port;
  }

  get count(): number {
    return this.datagrams.length;
  }

  clear(): void {
    this.datagrams.length = 0;
  }

  private closed = false;

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    return new Promise((resolve) => this.socket.close(() => resolve()));
  }
}

/**
 * Sends a marker datagram to `capture` and waits for it: every datagram enqueued on the socket before
 * the call has then been read. Returns the marker's index in `capture.datagrams`.
 */
export async function drain(capture: UdpCapture): Promise<number> {
  const marker = Buffer.from(`marker-${Math.random()}`);
  const s = dgram.createSocket('udp4');
  await new Promise<void>((resolve, reject) =>
    s.send(marker, capture.port, '127.0.0.1', (err) => (err ? reject(err) : resolve())),
  );
  s.close();
  return waitFor(
    () => {
      const i = capture.datagrams.findIndex((d) => d.data.equals(marker));
      return i >= 0 ? i + 1 : 0;
    },
    10_000,
    'marker datagram',
  ).then((n) => n - 1);
}
