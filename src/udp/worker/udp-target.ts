/**
 * One stream's connected UDP socket: opens it (resolve, bind to the unit's address, connect), sends,
 * and turns socket errors into alerts. connect() matters: only a connected UDP socket learns of the
 * ICMP port-unreachable a host answers when nothing listens, as ECONNREFUSED.
 *
 * An alert about sending clears once packets have gone out without that error for CLEAR_AFTER_MS
 * (hosts rate-limit ICMP to about one message per second, so a shorter quiet spell proves nothing).
 * An alert about opening clears when the socket opens. A closed socket is reopened after RETRY_MS.
 */
import dgram from 'node:dgram';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { StreamName, StreamStats } from '../contract/stream-totals.js';
import type { UdpFaultHook } from './udp-fault-filter.js';
import type { AlertEvent, StreamAlertIds } from '../contract/alert-ids.js';
import { classifyOpenError, classifySendError, type SendProblem } from './stream-alerts.js';

export const CLEAR_AFTER_MS = 3000;
const RETRY_MS = 1000;
const CHECK_MS = 250;
/** Room for a catch-up burst on slow links; the kernel caps it at net.core.wmem_max. */
const SEND_BUFFER_BYTES = 4 * 1024 * 1024;

export interface UdpTargetOptions {
  host: string;
  port: number;
  bindAddress: string | undefined;
  alerts: StreamAlertIds;
  /** IP TTL of datagrams to a multicast group (a unicast destination keeps the system's TTL). */
  multicastTtl: number;
  /** Which stream this socket carries, for UDP fault rules (zone packets ride with the lidar stream). */
  stream: StreamName;
  /** The port's parameter name, for msg_verbose ("udp_port_lidar"). */
  portParameter: string;
  report(event: AlertEvent): void;
  /** The unit's UDP fault rules (src/faults); `filter` is null without rules. */
  faults: UdpFaultHook;
}

/** IPv4 224.0.0.0/4 or IPv6 ff00::/8. */
const isMulticast = (address: string) =>
  isIP(address) === 6 ? /^ff/i.test(address) : (Number(address.split('.')[0]) & 0xf0) === 0xe0;

const errorCode = (err: unknown) => (err as NodeJS.ErrnoException | null)?.code;

export class UdpTarget {
  readonly stats: StreamStats = { sent: 0, skipped: 0, failed: 0, bytes: 0 };
  private socket: dgram.Socket | null = null;
  private connected = false;
  private closed = false;
  private retryTimer: NodeJS.Timeout | null = null;
  /** Runs only while an alert about sending is up: a healthy stream has no timer of its own. */
  private checkTimer: NodeJS.Timeout | null = null;
  /** Active alert id → when its condition was last seen (performance.now()). */
  private readonly active = new Map<string, number>();
  private sentSinceProblem = false;

  constructor(private readonly options: UdpTargetOptions) {}

  get isConnected(): boolean {
    return this.connected;
  }

  /** Resolves when the socket is connected or the attempt failed (then an alert is up and a retry is scheduled). */
  async open(): Promise<void> {
    const { host, port, bindAddress } = this.options;
    let address: string;
    let family: number;
    try {
      ({ address, family } = await lookup(host));
    } catch (err) {
      return this.openFailed(err);
    }
    if (this.closed) return;
    const socket = dgram.createSocket({ type: family === 6 ? 'udp6' : 'udp4' });
    this.socket = socket;
    socket.on('error', (err) => this.onSocketError(socket, err));
    try {
      await new Promise<void>((resolve, reject) => {
        socket.once('error', reject);
        // Bind to the unit's own address so datagrams come from the IP clients talk HTTP to.
        const local = bindAddress && isIP(bindAddress) === family ? bindAddress : undefined;
        socket.bind({ port: 0, address: local, exclusive: true }, () => {
          socket.connect(port, address, (err?: Error) => {
            socket.off('error', reject);
            if (err) reject(err);
            else resolve();
          });
        });
      });
    } catch (err) {
      if (this.socket === socket) this.socket = null;
      socket.close();
      return this.openFailed(err);
    }
    if (this.closed) {
      socket.close();
      return;
    }
    try {
      socket.setSendBufferSize(SEND_BUFFER_BYTES);
    } catch {
      // Not fatal: the default buffer holds several packets.
    }
    if (isMulticast(address)) socket.setMulticastTTL(this.options.multicastTtl);
    this.connected = true;
    const ids = this.options.alerts;
    for (const id of [ids.unresolved, ids.unreachable, ids.openFailed]) {
      this.clear(id, `the UDP socket to ${this.where()} is open`);
    }
  }

  /** Sends one datagram if the socket is up; the buffer must stay untouched until the next frame. */
  send(bytes: Buffer): void {
    // Fault injection (src/faults): null unless a UDP rule is set.
    if (this.options.faults.filter?.intercept(this.stream, bytes, this.sendNow)) return;
    this.sendNow(bytes);
  }

  /** Which stream this is, for UDP fault rules. */
  get stream(): StreamName {
    return this.options.stream;
  }

  /** Whether one of this socket's alerts is up (raised and not cleared). */
  get alerting(): boolean {
    return this.active.size > 0;
  }

  private readonly sendNow = (bytes: Buffer): void => {
    if (!this.connected || !this.socket) {
      this.stats.failed++;
      return;
    }
    this.socket.send(bytes, this.afterSend);
  };

  close(): void {
    this.closed = true;
    this.connected = false;
    this.stopChecking();
    if (this.retryTimer) clearTimeout(this.retryTimer);
    // Closing cancels sends libuv still queues: nothing of this stream leaves after close().
    this.socket?.close();
    this.socket = null;
  }

  /** Alert ids this target holds active. */
  activeAlerts(): string[] {
    return [...this.active.keys()];
  }

  private readonly afterSend = (err: Error | null, bytes?: number) => {
    if (!err) {
      this.stats.sent++;
      this.stats.bytes += bytes ?? 0;
      this.sentSinceProblem = true;
      return;
    }
    this.stats.failed++;
    this.onProblem(classifySendError(errorCode(err)), err);
  };

  private onSocketError(socket: dgram.Socket, err: Error) {
    if (socket !== this.socket || !this.connected) return; // errors while opening are handled by open()
    this.onProblem(classifySendError(errorCode(err)), err);
  }

  private onProblem(problem: SendProblem, err: Error) {
    const id = this.options.alerts[problem];
    this.raise(id, { error: errorCode(err) ?? err.message });
    if (problem === 'socketClosed') this.reopenLater();
  }

  private openFailed(err: unknown) {
    if (this.closed) return;
    const kind = classifyOpenError(errorCode(err), (err as NodeJS.ErrnoException | null)?.syscall);
    this.raise(this.options.alerts[kind], { error: errorCode(err) ?? String(err) });
    this.reopenLater();
  }

  private reopenLater() {
    this.connected = false;
    this.socket?.close();
    this.socket = null;
    if (this.closed || this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (!this.closed) void this.open();
    }, RETRY_MS);
    this.retryTimer.unref();
  }

  private where() {
    const { host, port } = this.options;
    return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  }

  private raise(id: string, extra: Record<string, string>) {
    const first = !this.active.has(id);
    this.active.set(id, performance.now());
    this.sentSinceProblem = false;
    if (!first) return;
    if (!this.checkTimer) {
      this.checkTimer = setInterval(() => this.clearQuietAlerts(), CHECK_MS);
      this.checkTimer.unref();
    }
    const { host, port, portParameter } = this.options;
    this.options.report({ action: 'raise', id, vars: { host, port, port_parameter: portParameter, ...extra } });
  }

  private clear(id: string, reason: string) {
    if (!this.active.delete(id)) return;
    if (this.active.size === 0) this.stopChecking();
    this.options.report({ action: 'clear', id, reason });
  }

  private stopChecking() {
    if (this.checkTimer) clearInterval(this.checkTimer);
    this.checkTimer = null;
  }

  private clearQuietAlerts() {
    if (!this.connected || !this.sentSinceProblem) return;
    const now = performance.now();
    const ids = this.options.alerts;
    for (const id of [ids.refused, ids.sendFailed, ids.socketClosed]) {
      const last = this.active.get(id);
      if (last !== undefined && now - last >= CLEAR_AFTER_MS) {
        this.clear(id, `packets to ${this.where()} have been sent without errors for ${CLEAR_AFTER_MS / 1000} s`);
      }
    }
  }
}
