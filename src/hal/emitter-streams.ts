/**
 * The data streams (StreamsHal) of both HALs: the simulated unit, and a real unit until a hardware driver
 * exists. Hands each initialization's stream plan (src/udp/contract/stream-plan.ts, built by the device core) to the
 * process's emitter worker as it is; a replaying unit adds the recording to it. The worker's alerts go to the
 * alert log straight from the unit's Emitter.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { AlertSink, UdpFaultRule } from '../model/index.js';
import {
  Emitter,
  type EmitterStats,
  type PreviewFrame,
  type ReplaySettings,
  type StreamPlan,
  type StreamTotals,
  type UdpFaultCount,
  type ZoneMonitorPlan,
} from '../udp/index.js';
import type { StreamFaults } from './faults.js';
import type { StreamsHal } from './streams.js';
import { SIMULATED_ZONE_WATCHER, type ZoneHal, type ZoneWatcher } from './zones.js';

const RESTART_AFTER_CRASH_MS = 1000;

export class EmitterStreams implements StreamsHal {
  private readonly emitter: Emitter;
  private lastPlan: StreamPlan | null = null;
  private restartTimer: NodeJS.Timeout | null = null;
  private closed = false;
  private readonly previewListeners = new Set<(frame: PreviewFrame | null) => void>();

  /**
   * @param replay set when the unit replays a recording instead of streaming the synthetic scene
   * @param zoneWatcher what this data path is to Zone Monitor (the device build says it has no zone hardware)
   */
  constructor(
    alerts: AlertSink,
    private readonly log?: { warn(context: object, message: string): void },
    private readonly replay?: ReplaySettings,
    zoneWatcher: ZoneWatcher = SIMULATED_ZONE_WATCHER,
  ) {
    this.zones = { watcher: zoneWatcher, setZones: (zones: ZoneMonitorPlan | null) => this.setLiveZones(zones) };
    this.emitter = new Emitter({
      alerts,
      crashed: (error) => {
        this.log?.warn({ err: error }, 'the emitter worker died; a running stream restarts with the same run');
        this.restartAfterCrash();
      },
      faultCounts: (counts, spent) => this.faultCounts?.(counts, spent),
      preview: (frame) => {
        for (const listener of this.previewListeners) listener(frame);
      },
    });
  }

  /** The live zones of the running plan and of the next: the plan's at apply, Zone Monitor's changes since. */
  private liveZones: ZoneMonitorPlan | null = null;
  private faultCounts: ((counts: UdpFaultCount[], spent: string[]) => void) | undefined;
  private faultRules: readonly UdpFaultRule[] = [];
  private startDelayMs = 0;

  /** Fault injection (src/faults): packet rules, their counts, and a slow start of each run. */
  readonly faults: StreamFaults = {
    setRules: (rules) => {
      this.faultRules = rules;
      this.emitter.setFaultRules([...rules]);
    },
    onCounts: (listener) => {
      this.faultCounts = listener;
    },
    setStartDelay: (ms) => {
      this.startDelayMs = ms;
    },
    setObjects: (objects) => this.emitter.setObjects(objects),
  };

  /** Zone Monitor's live zones from now on, without a reinit (a set applied, live_ids changed). */
  readonly zones: ZoneHal;

  udpFaultRules(): readonly UdpFaultRule[] {
    return this.faultRules;
  }

  async apply(plan: StreamPlan | null): Promise<void> {
    if (plan) this.liveZones = plan.liveZones;
    // A slow reinitialization (fault injection): the old streams stop, nothing is sent for the delay.
    if (plan && this.startDelayMs > 0) {
      await this.applyPlan(null);
      await delay(this.startDelayMs);
    }
    // Zones changed during the delay are the run's.
    await this.applyPlan(plan && { ...plan, liveZones: this.liveZones, ...(this.replay && { replay: this.replay }) });
  }

  /** Zone Monitor's live zones changed between initializations: the running plan's, and a restarted one's. */
  private setLiveZones(zones: ZoneMonitorPlan | null): void {
    this.liveZones = zones;
    if (this.lastPlan) this.lastPlan = { ...this.lastPlan, liveZones: zones };
    this.emitter.setZones(zones);
  }

  private async applyPlan(plan: StreamPlan | null): Promise<void> {
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = null;
    this.lastPlan = plan;
    await this.emitter.apply(plan);
  }

  /** The worker's tap runs only while at least one listener watches. */
  watchPreview(listener: (frame: PreviewFrame | null) => void): () => void {
    this.previewListeners.add(listener);
    if (this.previewListeners.size === 1) this.emitter.setPreview(true);
    return () => {
      if (!this.previewListeners.delete(listener)) return;
      if (this.previewListeners.size === 0 && !this.closed) this.emitter.setPreview(false);
    };
  }

  setAlertFlags(flags: number): void {
    this.emitter.setAlertFlags(flags);
  }

  setThermalHeader(bytes16to19: number): void {
    this.emitter.setThermalHeader(bytes16to19);
  }

  /** Packet counters of the running streams (benchmarks, diagnostics). */
  stats(): Promise<EmitterStats> {
    return this.emitter.stats();
  }

  /** Fault injection: the emitter worker dies as in a crash; it is restarted with the same run. */
  simulateWorkerCrash(): Promise<void> {
    return this.emitter.simulateCrash();
  }

  /** Packet counters since start-up, across reinits (GET /metrics). */
  streamTotals(): Promise<StreamTotals> {
    return this.emitter.totals();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    await this.emitter.close();
  }

  /** A dead worker must not silence the unit for good: start a new one with the same run. */
  private restartAfterCrash() {
    if (this.closed || !this.lastPlan || this.restartTimer) return;
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      const plan = this.lastPlan;
      if (this.closed || !plan) return;
      this.emitter.apply(plan).catch(() => this.restartAfterCrash());
    }, RESTART_AFTER_CRASH_MS);
    this.restartTimer.unref();
  }
}
