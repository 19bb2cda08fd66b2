/**
 * Cuts connections whose client has stopped taking its answer: a socket with bytes waiting to be sent
 * (`writableLength` > 0, so the kernel's buffers towards the client are full too) that has sent nothing for
 * `stallMs` is destroyed. This is what ends a live view whose laptop went to sleep, a diagnostics download
 * nobody reads, or any answer to a client that stopped reading; its bytes and its connection slot are freed.
 * A client that reads slowly is not cut: every byte it takes counts as progress.
 *
 * One timer for every connection, as body-rate.ts does for request bodies.
 */
import type { Socket } from 'node:net';

interface Progress {
  /** Bytes the socket has handed to the kernel, as of `since`. */
  sent: number;
  since: number;
}

/** Bytes the socket has handed to the kernel: Node's `bytesWritten` counts what still waits in its buffer too. */
function bytesSent(socket: Socket): number {
  return socket.bytesWritten - socket.writableLength;
}

export class StalledWriteWatch {
  private readonly progress = new WeakMap<Socket, Progress>();
  private readonly timer: NodeJS.Timeout;
  /** Connections cut for a stalled client since start. */
  cut = 0;

  constructor(
    private readonly sockets: () => Iterable<Socket>,
    private readonly stallMs: number,
  ) {
    this.timer = setInterval(() => this.sweep(), Math.max(50, Math.min(1000, Math.floor(stallMs / 4))));
    this.timer.unref();
  }

  /** Looks at every connection once; `now` is given by tests that step time instead of waiting for it. */
  sweep(now = Date.now()): void {
    for (const socket of this.sockets()) {
      if (socket.destroyed || socket.writableLength === 0) {
        this.progress.delete(socket);
        continue;
      }
      const sent = bytesSent(socket);
      const seen = this.progress.get(socket);
      if (seen === undefined || seen.sent !== sent) {
        this.progress.set(socket, { sent, since: now });
      } else if (now - seen.since >= this.stallMs) {
        this.progress.delete(socket);
        this.cut++;
        // A reset, not a FIN: a FIN would wait behind the bytes the client is not taking, and the kernel would
        // keep holding them; the reset frees them at once and tells the client when it wakes.
        socket.resetAndDestroy();
      }
    }
  }

  close(): void {
    clearInterval(this.timer);
  }
}
