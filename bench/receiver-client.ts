/** The orchestrator's handle on a UDP receiver child (bench/udp-receiver.ts). */
import type { ChildProcess } from 'node:child_process';
import { forkTs, nextMessage, stopProcess } from './processes.js';
import type { FromReceiver, ReceiverSpec, StreamReport, ToReceiver } from './receiver-protocol.js';

type InitEvent = Extract<FromReceiver, { type: 'init' }>;

const isType =
  <K extends FromReceiver['type']>(type: K) =>
  (message: unknown): message is Extract<FromReceiver, { type: K }> =>
    typeof message === 'object' && message !== null && (message as { type?: unknown }).type === type;

export class Receiver {
  /** The latest init_id change seen per stream. */
  private readonly lastInit = new Map<string, InitEvent>();
  private readonly initWaiters = new Set<(event: InitEvent) => void>();

  private constructor(
    private readonly child: ChildProcess,
    readonly ports: Record<string, number>,
  ) {
    child.on('message', (message: unknown) => {
      if (!isType('init')(message)) return;
      this.lastInit.set(message.id, message);
      for (const waiter of this.initWaiters) waiter(message);
    });
  }

  get pid(): number {
    return this.child.pid as number;
  }

  static async start(streams: ReceiverSpec[]): Promise<Receiver> {
    const child = forkTs(new URL('./udp-receiver.ts', import.meta.url));
    try {
      const opened = nextMessage(child, isType('opened'), 15_000, 'the UDP receiver to open its ports');
      child.send({ type: 'open', streams } satisfies ToReceiver);
      return new Receiver(child, (await opened).ports);
    } catch (error) {
      await stopProcess(child);
      throw error;
    }
  }

  /** Gives open streams new specs (same ports) or opens more; resolves with all ports. */
  async open(streams: ReceiverSpec[]): Promise<Record<string, number>> {
    const opened = nextMessage(this.child, isType('opened'), 15_000, 'the UDP receiver to open its ports');
    this.child.send({ type: 'open', streams } satisfies ToReceiver);
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
    this.child.send({ type: 'start' } satisfies ToReceiver);
    await started;
  }

  async stopWindow(): Promise<Record<string, StreamReport>> {
    const stats = nextMessage(this.child, isType('stats'), 10_000, 'the receiver to report');
    this.child.send({ type: 'stop' } satisfies ToReceiver);
    return (await stats).streams;
  }

  close(): Promise<void> {
    return stopProcess(this.child);
  }
}
