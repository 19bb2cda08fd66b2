/**
 * A unit's handle on the data plane. The streams run in the process's one emitter worker
 * (emitter-host.ts), started on the first plan that sends anything and kept for later runs (starting
 * a thread costs more than a reinit may take); this unit joins it then and leaves it on close.
 */
import type { AlertSink, UdpFaultRule } from '../../model/index.js';
import type { PreviewFrame } from '../contract/preview.js';
import type { SceneObjectPlan } from '../contract/scene-plan.js';
import type { StreamPlan } from '../contract/stream-plan.js';
import { type EmitterStats, emptyTotals, type StreamTotals } from '../contract/stream-totals.js';
import {
  EMITTER_SLOTS,
  type FromWorker,
  SHARED_ALERT_FLAGS,
  SHARED_THERMAL_HEADER,
  type ToWorker,
} from '../contract/thread-messages.js';
import type { UdpFaultCount } from '../contract/udp-fault-counts.js';
import type { ZoneMonitorPlan } from '../contract/zone-plan.js';
import { emitterHost, type HostMember } from './emitter-host.js';

export interface EmitterEvents {
  /**
   * Where the worker's alerts go (the unit's alert log), each once, as the worker reports it. Those of a run
   * that a newer apply() has replaced are dropped: the device core cleared that run's alerts at reinit.
   */
  alerts: Pick<AlertSink, 'raise' | 'clear'>;
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

/** How long close() waits for the worker to stop this unit's streams. */
const DETACH_WAIT_MS = 2000;

export class Emitter implements HostMember {
  readonly emitterId = emitterHost.newEmitterId();
  private readonly flags = new Int32Array(new SharedArrayBuffer(4 * EMITTER_SLOTS));
  private seq = 0;
  /** Sequence number of the newest apply(): alerts of older runs are stale. */
  private runSeq = 0;
  private readonly waiting = new Map<number, Waiter>();
  private closing = false;
  private faultRules: UdpFaultRule[] = [];
  private previewOn = false;
  private objects: SceneObjectPlan[] = [];

  constructor(private readonly events: EmitterEvents) {}

  private get joined(): boolean {
    return emitterHost.isMember(this.emitterId);
  }

  /**
   * Stops the current run and starts `planned` (null, or a plan that sends nothing: nothing). Resolves when the old run can send
   * nothing more and the new one is sending.
   */
  async apply(planned: StreamPlan | null): Promise<void> {
    if (this.closing) throw new Error('emitter closed');
    const seq = ++this.seq;
    this.runSeq = seq;
    // A plan that sends nothing needs no worker.
    const plan = planned?.lidar || planned?.imu ? planned : null;
    if (!plan && !this.joined) return;
    const reply = this.request(seq, { type: 'apply', emitterId: this.emitterId, seq, plan }) as Promise<{
      error?: string;
    }>;
    const { error } = await reply;
    if (error) throw new Error(`data streams could not start: ${error}`);
  }

  /** The `alert_flags` byte of the packets sent from now on. */
  setAlertFlags(flags: number): void {
    Atomics.store(this.flags, SHARED_ALERT_FLAGS, flags & 0xff);
  }

  /** Header bytes 16-19 (thermal and shot-limiting countdowns and states) of the packets sent from now on. */
  setThermalHeader(bytes16to19: number): void {
    Atomics.store(this.flags, SHARED_THERMAL_HEADER, bytes16to19 | 0);
  }

  /** Fault injection: the UDP rules from now on; kept for a worker started later. */
  setFaultRules(rules: UdpFaultRule[]): void {
    this.faultRules = rules;
    if (this.joined || rules.length) this.send({ type: 'faults', emitterId: this.emitterId, rules });
  }

  /**
   * Zone Monitor's live zones changed between initializations: the running plan's from now on. A plan
   * carries its own (`liveZones`): without a worker no run is there to change.
   */
  setZones(plan: ZoneMonitorPlan | null): void {
    if (this.joined) emitterHost.post({ type: 'zones', emitterId: this.emitterId, plan });
  }

  /** Fault injection: the objects in the scene from now on; kept for a worker started later. */
  setObjects(objects: SceneObjectPlan[]): void {
    this.objects = objects;
    if (this.joined || objects.length) this.send({ type: 'objects', emitterId: this.emitterId, objects });
  }

  /** Starts or stops the live-view pictures; without a worker (nothing streams) there are none to send. */
  setPreview(on: boolean): void {
    this.previewOn = on;
    if (this.joined) emitterHost.post({ type: 'preview', emitterId: this.emitterId, on });
  }

  async stats(): Promise<EmitterStats> {
    if (!this.joined) return { initId: null, lidar: null, imu: null };
    const seq = ++this.seq;
    return (await this.request(seq, { type: 'stats', emitterId: this.emitterId, seq })) as EmitterStats;
  }

  /**
   * Fault injection: this unit's streams die as in a crash of the worker (the owner hears `crashed`);
   * resolves once they are gone. Alone in the worker, the thread itself is ended; beside other units
   * only this unit's part of it, so that one unit's fault does not stop a fleet.
   */
  async simulateCrash(): Promise<void> {
    if (!this.joined) return;
    if (emitterHost.memberCount === 1) return emitterHost.terminate();
    const seq = ++this.seq;
    await this.request(seq, { type: 'crash', emitterId: this.emitterId, seq });
    // The worker has forgotten the unit, as a new worker would not know it: join it again.
    for (const message of this.joinMessages()) emitterHost.post(message);
    this.onWorkerExit(new Error('emitter worker exited with code 1'));
  }

  /** Counters since this unit joined the worker, across runs; zero before any stream ran. */
  async totals(): Promise<StreamTotals> {
    if (!this.joined) return emptyTotals();
    const seq = ++this.seq;
    return (await this.request(seq, { type: 'totals', emitterId: this.emitterId, seq })) as StreamTotals;
  }

  async close(): Promise<void> {
    this.closing = true;
    if (!this.joined) return;
    if (!emitterHost.running) return emitterHost.leave(this.emitterId);
    const seq = ++this.seq;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.request(seq, { type: 'detach', emitterId: this.emitterId, seq }).catch(() => undefined),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, DETACH_WAIT_MS))),
    ]);
    clearTimeout(timer);
    this.waiting.delete(seq);
    await emitterHost.leave(this.emitterId);
  }

  /** HostMember: what a newly started worker must hear to know this unit. */
  joinMessages(): ToWorker[] {
    const messages: ToWorker[] = [
      { type: 'attach', emitterId: this.emitterId, flags: this.flags.buffer as SharedArrayBuffer },
    ];
    if (this.faultRules.length) messages.push({ type: 'faults', emitterId: this.emitterId, rules: this.faultRules });
    if (this.previewOn) messages.push({ type: 'preview', emitterId: this.emitterId, on: true });
    if (this.objects.length) messages.push({ type: 'objects', emitterId: this.emitterId, objects: this.objects });
    return messages;
  }

  private send(message: ToWorker): void {
    if (!this.joined) emitterHost.join(this);
    emitterHost.post(message);
  }

  private request(seq: number, message: ToWorker): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.waiting.set(seq, { resolve, reject });
      this.send(message);
    });
  }

  /** HostMember: a message of the worker about this unit. */
  onMessage(m: FromWorker): void {
    switch (m.type) {
      case 'applied':
      case 'stats':
      case 'totals':
      case 'done': {
        const w = this.waiting.get(m.seq);
        this.waiting.delete(m.seq);
        w?.resolve(m.type === 'stats' ? m.stats : m.type === 'totals' ? m.totals : m);
        return;
      }
      case 'alert': {
        if (m.runSeq !== this.runSeq || this.closing) return;
        const { event } = m;
        if (event.action === 'raise') this.events.alerts.raise(event.id, event.vars);
        else this.events.alerts.clear(event.id, event.reason);
        return;
      }
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

  /** HostMember: the worker died (or, in simulateCrash, this unit's part of it). */
  onWorkerExit(error: Error): void {
    for (const w of this.waiting.values()) w.reject(error);
    this.waiting.clear();
    if (!this.closing) this.events.crashed(error);
  }
}
