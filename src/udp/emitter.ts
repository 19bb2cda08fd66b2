/**
 * The main thread's handle on the emitter worker. The worker is started on the first plan that sends
 * anything and kept for later runs (starting a thread costs more than a reinit may take).
 */
import type { Worker } from 'node:worker_threads';
import {
  SHARED_ALERT_FLAGS,
  SHARED_THERMAL_HEADER,
  SHARED_SLOTS,
  SHARED_WAKE,
  type AlertEvent,
  type EmitterPlan,
  type EmitterStats,
  type FromWorker,
  type ToWorker,
} from './emitter-protocol.js';
import type { PreviewFrame } from './preview-frame.js';
import { startSiblingWorker } from './worker-file.js';
import type { UdpFaultRule } from '../model/index.js';
import type { UdpFaultCount } from './udp-fault-filter.js';
import { emptyTotals, type StreamTotals } from './stream-totals.js';

export interface EmitterEvents {
  /** An alert event of the run started by apply number `runSeq`. */
  alert(runSeq: number, event: AlertEvent): void;
  /** The worker died; streams are down until the next apply (which starts a new worker). */
  crashed(error: Error): void;
  /** Fault injection: what the UDP rules have done so far. */
  faultCounts?(counts: UdpFaultCount[], spent: string[]): void;
  /** A live-view picture (null: no lidar stream runs), while setPreview(true). */
  preview?(frame: PreviewFrame | null): void;
}

interface Waiter {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

export class Emitter {
  private worker: Worker | null = null;
  private readonly shared = new Int32Array(new SharedArrayBuffer(SHARED_SLOTS * 4));
  private seq = 0;
  private readonly waiting = new Map<number, Waiter>();
  private closing = false;
  private faultRules: UdpFaultRule[] = [];
  private previewOn = false;

  constructor(private readonly events: EmitterEvents) {}

  /** Sequence number the next apply() will carry (alerts are tagged with it). */
  get nextSeq(): number {
    return this.seq + 1;
  }

  /**
   * Stops the current run and starts `plan` (null: nothing). Resolves when the old run can send
   * nothing more and the new one is sending.
   */
  async apply(plan: EmitterPlan | null): Promise<void> {
    if (this.closing) throw new Error('emitter closed');
    if (!plan && !this.worker) return;
    const seq = ++this.seq;
    const reply = this.request(seq, { type: 'apply', seq, plan }) as Promise<{ error?: string }>;
    const { error } = await reply;
    if (error) throw new Error(`data streams could not start: ${error}`);
  }

  /** The `alert_flags` byte of the packets sent from now on. */
  setAlertFlags(flags: number): void {
    Atomics.store(this.shared, SHARED_ALERT_FLAGS, flags & 0xff);
  }

  /** Header bytes 16-19 (thermal and shot-limiting countdowns and states) of the packets sent from now on. */
  setThermalHeader(bytes16to19: number): void {
    Atomics.store(this.shared, SHARED_THERMAL_HEADER, bytes16to19 | 0);
  }

  /** Fault injection: the UDP rules from now on; kept for a worker started later. */
  setFaultRules(rules: UdpFaultRule[]): void {
    this.faultRules = rules;
    if (this.worker || rules.length) this.ensureWorker().postMessage({ type: 'faults', rules } satisfies ToWorker);
  }

  /** Starts or stops the live-view pictures; without a worker (nothing streams) there are none to send. */
  setPreview(on: boolean): void {
    this.previewOn = on;
    if (!this.worker) return;
    this.worker.postMessage({ type: 'preview', on } satisfies ToWorker);
    this.wake();
  }

  async stats(): Promise<EmitterStats> {
    if (!this.worker) return { initId: null, lidar: null, imu: null };
    const seq = ++this.seq;
    return (await this.request(seq, { type: 'stats', seq })) as EmitterStats;
  }

  /** Fault injection: ends the worker as a crash would (the owner hears `crashed`); resolves once it is gone. */
  async simulateCrash(): Promise<void> {
    await this.worker?.terminate();
  }

  /** Counters since the worker started, across runs; zero before any stream ran. */
  async totals(): Promise<StreamTotals> {
    if (!this.worker) return emptyTotals();
    const seq = ++this.seq;
    return (await this.request(seq, { type: 'totals', seq })) as StreamTotals;
  }

  async close(): Promise<void> {
    this.closing = true;
    const worker = this.worker;
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage({ type: 'close' } satisfies ToWorker);
    this.wake();
    const timer = setTimeout(() => void worker.terminate(), 2000);
    await exited;
    clearTimeout(timer);
  }

  private request(seq: number, message: ToWorker): Promise<unknown> {
    const worker = this.ensureWorker();
    return new Promise((resolve, reject) => {
      this.waiting.set(seq, { resolve, reject });
      worker.postMessage(message);
      this.wake();
    });
  }

  /** Cuts the worker's sub-millisecond sleep short so it reads the message at once. */
  private wake() {
    Atomics.notify(this.shared, SHARED_WAKE);
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = startSiblingWorker(import.meta.url, './emitter-worker.js', {
      workerData: { shared: this.shared.buffer },
      name: 'udp-emitter',
      // The worker's garbage is small per packet (send requests): V8's smallest young generation keeps
      // the process lean (fleets of simulated units) at the price of more, very short scavenges.
      resourceLimits: { maxYoungGenerationSizeMb: 1 },
    });
    worker.on('message', (m: FromWorker) => this.onMessage(m));
    if (this.faultRules.length) worker.postMessage({ type: 'faults', rules: this.faultRules } satisfies ToWorker);
    worker.on('error', (err) => this.onExit(worker, err));
    worker.on('exit', (code) => this.onExit(worker, new Error(`emitter worker exited with code ${code}`)));
    this.worker = worker;
    if (this.previewOn) worker.postMessage({ type: 'preview', on: true } satisfies ToWorker);
    return worker;
  }

  private onMessage(m: FromWorker) {
    switch (m.type) {
      case 'applied':
      case 'stats':
      case 'totals': {
        const w = this.waiting.get(m.seq);
        this.waiting.delete(m.seq);
        w?.resolve(m.type === 'stats' ? m.stats : m.type === 'totals' ? m.totals : m);
        return;
      }
      case 'alert':
        this.events.alert(m.runSeq, m.event);
        return;
      case 'faultCounts':
        this.events.faultCounts?.(m.counts, m.spent);
        return;
      case 'preview':
        this.events.preview?.(m.frame);
        return;
      case 'ready':
        return;
    }
  }

  private onExit(worker: Worker, error: Error) {
    if (this.worker !== worker) return;
    this.worker = null;
    for (const w of this.waiting.values()) w.reject(error);
    this.waiting.clear();
    if (!this.closing) this.events.crashed(error);
  }
}
