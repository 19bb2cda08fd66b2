/** The orchestrator's handle on a UDP receiver child (bench/udp-receiver.ts). */
import type { ChildProcess } from 'node:child_process';
import { nativeReceiverBinary, spawnNativeReceiver } from './native-receiver.js';
import { forkTs, nextMessage, stopProcess } from './processes.js';
import type { FromReceiver, ReceiverSpec, StreamReport, ToReceiver } from './receiver-protocol.js';

type InitEvent = Extract<FromReceiver, { type: 'init' }>;

const isType =
  <K extends FromReceiver['type']>(type: K) =>
  (message: unknown): message is Extract<FromReceiver, { type: K }> =>
    typeof message === 'object' && message !== null && (message as { type?: unknown }).type === type;

/** The Node receiver (bench/udp-receiver.ts), over IPC: it also keeps every inter-arrival time for jitter. */
function forkNodeReceiver(): { child: ChildProcess; post: (message: ToReceiver) => void } {
  const child = forkTs(new URL('./udp-receiver.ts', import.meta.url));
  return { child, post: (message) => child.send(message) };
}

export class Receiver {
  /** The latest init_id change seen per stream. */
  private readonly lastInit = new Map<string, InitEvent>();
  private readonly initWaiters = new Set<(event: InitEvent) => void>();

  private constructor(
    private readonly child: ChildProcess,
    private readonly post: (message: ToReceiver) => void,
    readonly ports: Record<string, number>,
    /** `native`: the C header counter (no jitter figures); `node`: bench/udp-receiver.ts. */
    readonly kind: 'native' | 'node',
  ) {
    child.on('message', (message: unknown) => {
      if (!isType('init')(message)) return;
      this.lastInit.set(message.id, message);
      for (const waiter of this.initWaiters) waiter(message);
    });
  }

  /** Which receiver a counting benchmark gets on this machine, and why not the C one. */
  static countingKind(): string {
    const native = nativeReceiverBinary();
    return 'binary' in native ? 'C header counter' : `Node receiver: ${native.error}`;
  }

  get pid(): number {
    return this.child.pid as number;
  }

  /**
   * `counting`: the streams are only counted (no jitter): the C receiver does that for a fraction of
   * the CPU when a C compiler is at hand (see `Receiver.countingKind`).
   */
  static async start(streams: ReceiverSpec[], options: { counting?: boolean } = {}): Promise<Receiver> {
    const native = options.counting ? nativeReceiverBinary() : undefined;
    const { child, post } = native && 'binary' in native ? spawnNativeReceiver(native.binary) : forkNodeReceiver();
    try {
      // Posted first: a message the receiver refuses throws here, before anyone waits for its answer
      // (which can only arrive on a later turn of the event loop).
      post({ type: 'open', streams });
      const opened = nextMessage(child, isType('opened'), 15_000, 'the UDP receiver to open its ports');
      return new Receiver(child, post, (await opened).ports, native && 'binary' in native ? 'native' : 'node');
    } catch (error) {
      await stopProcess(child);
      throw error;
    }
  }

  /** Gives open streams new specs (same ports) or opens more; resolves with all ports. */
  async open(streams: ReceiverSpec[]): Promise<Record<string, number>> {
    this.post({ type: 'open', streams });
    const opened = nextMessage(this.child, isType('opened'), 15_000, 'the UDP receiver to open its ports');
    Object.assign(this.ports, (await opened).ports);
    return this.ports;
  }

  /** The init_id of the newest packet on stream `id`, if any arrived. */
  currentInitId(id: string): number | undefined {
    return this.lastInit.get(id)?.initId;
  }

  /**
   * Resolves with the first init_id change on stream `id` that arrived after `afterNs` (hrtime)
   * and satisfies `accept`; rejects after `timeoutMs`.
   */
  waitForInit(
    id: string,
    afterNs: bigint,
    timeoutMs: number,
    accept: (initId: number) => boolean = () => true,
  ): Promise<InitEvent> {
    const fits = (e: InitEvent) => e.id === id && BigInt(e.atNs) > afterNs && accept(e.initId);
    const seen = this.lastInit.get(id);
    if (seen && fits(seen)) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const waiter = (event: InitEvent) => {
        if (!fits(event)) return;
        clearTimeout(timer);
        this.initWaiters.delete(waiter);
        resolve(event);
      };
      const timer = setTimeout(() => {
        this.initWaiters.delete(waiter);
        reject(new Error(`no packet with a new init_id on ${id} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.initWaiters.add(waiter);
    });
  }

  async startWindow(): Promise<void> {
    const started = nextMessage(this.child, isType('started'), 10_000, 'the receiver to start counting');
    this.post({ type: 'start' });
    await started;
  }

  async stopWindow(): Promise<Record<string, StreamReport>> {
    const stats = nextMessage(this.child, isType('stats'), 10_000, 'the receiver to report');
    this.post({ type: 'stop' });
    return (await stats).streams;
  }

  close(): Promise<void> {
    return stopProcess(this.child);
  }
}
