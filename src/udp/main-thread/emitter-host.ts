/**
 * The one emitter worker of a process, shared by every unit in it (a single unit, or a fleet's shared
 * process model). One thread and one clock for all streams: a fleet of N units costs N × its packets
 * and one wake-up per instant at which packets are due, not N threads each waking for its own.
 *
 * Units join (attach) when they first need the worker and leave (detach) on close; the worker ends
 * when the last one leaves and starts again for the next. Messages carry the emitter id of their unit's emitter.
 */
import type { Worker } from 'node:worker_threads';
import { type FromWorker, SHARED_WAKE, type ToWorker } from '../contract/thread-messages.js';
import { emitterWorkerUrl } from '../worker/worker-entry.js';
import { startWorkerModule } from './worker-file.js';

/** What the host needs of a unit's emitter. */
export interface HostMember {
  readonly emitterId: number;
  /** Messages to send to a worker that has just started, so that it knows this unit (attach first). */
  joinMessages(): ToWorker[];
  onMessage(message: FromWorker): void;
  /** The worker died. */
  onWorkerExit(error: Error): void;
}

/** How long a closing worker gets to stop its streams before it is terminated. */
const CLOSE_GRACE_MS = 2000;

export class EmitterHost {
  private worker: Worker | null = null;
  private readonly wakeSlot = new Int32Array(new SharedArrayBuffer(4));
  private readonly members = new Map<number, HostMember>();
  private lastEmitterId = 0;

  /** A new emitter id (never reused within the process): messages of that emitter carry it. */
  newEmitterId(): number {
    return ++this.lastEmitterId;
  }

  get memberCount(): number {
    return this.members.size;
  }

  /** Whether a worker runs now (it may have died, or not started yet). */
  get running(): boolean {
    return this.worker !== null;
  }

  isMember(emitterId: number): boolean {
    return this.members.has(emitterId);
  }

  /** Joins `member`, starting the worker if none runs. */
  join(member: HostMember): void {
    if (this.members.has(member.emitterId)) return;
    this.members.set(member.emitterId, member);
    if (this.worker) for (const message of member.joinMessages()) this.worker.postMessage(message);
    else this.start();
  }

  /** Sends a message of a member (which must have joined) and cuts the worker's sleep short. */
  post(message: ToWorker): void {
    if (!this.worker) this.start();
    this.worker?.postMessage(message);
    Atomics.notify(this.wakeSlot, SHARED_WAKE);
  }

  /** The member leaves (after its detach was answered); the last one out ends the worker. */
  async leave(emitterId: number): Promise<void> {
    this.members.delete(emitterId);
    if (this.members.size > 0 || !this.worker) return;
    const worker = this.worker;
    this.worker = null;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage({ type: 'close' } satisfies ToWorker);
    Atomics.notify(this.wakeSlot, SHARED_WAKE);
    const timer = setTimeout(() => void worker.terminate(), CLOSE_GRACE_MS);
    await exited;
    clearTimeout(timer);
  }

  /** Fault injection: ends the worker as a crash would; every member hears it. */
  async terminate(): Promise<void> {
    await this.worker?.terminate();
  }

  private start(): void {
    const worker = startWorkerModule(emitterWorkerUrl(), {
      workerData: { wake: this.wakeSlot.buffer },
      name: 'udp-emitter',
      // The worker's garbage is small per packet (send requests): V8's smallest young generation keeps
      // the process lean (fleets of simulated units) at the price of more, very short scavenges.
      resourceLimits: { maxYoungGenerationSizeMb: 1 },
    });
    this.worker = worker;
    worker.on('message', (m: FromWorker) => {
      if (m.type !== 'ready') this.members.get(m.emitterId)?.onMessage(m);
    });
    // A worker may throw any value, not only an Error.
    worker.on('error', (err) => this.onExit(worker, err instanceof Error ? err : new Error(String(err))));
    worker.on('exit', (code) => this.onExit(worker, new Error(`emitter worker exited with code ${code}`)));
    for (const member of this.members.values())
      for (const message of member.joinMessages()) worker.postMessage(message);
  }

  private onExit(worker: Worker, error: Error) {
    if (this.worker !== worker) return;
    this.worker = null;
    for (const member of [...this.members.values()]) member.onWorkerExit(error);
  }
}

/** The process's host: every Emitter of the process uses it. */
export const emitterHost = new EmitterHost();
