/**
 * The alert log of the sensor (spec alert rules 1-3): the set of active alerts (unlimited), a FIFO
 * of the last 32 trigger and clear entries, and the u32 cursor the next entry gets.
 *
 * It is the AlertSink every producer (data plane, telemetry monitor, fault injection) reports to.
 * Raising an alert that is already active logs nothing; clearing one that is not active logs
 * nothing. A clear entry repeats its trigger entry with a later realtime and cursor and
 * `active: false`. Each logged event is handed to the AlertLogStore as one change, so persistence
 * costs one small write per event and next_cursor never goes backwards across a restart.
 */
import { systemRealtimeNs } from '../hal/index.js';
import { alertDefinition, alertFlags, type AlertSink, renderVerbose } from '../model/index.js';
import { ALERT_LOG_CAPACITY, CURSOR_MODULUS, type AlertEntry, type AlertLogSnapshot } from './alert-entry.js';
import type { AlertLogStore } from './alert-log-store.js';

export interface AlertLogOptions {
  /** Where the log persists; without one the log lives in memory only. */
  store?: AlertLogStore;
  /** Nanoseconds of the system realtime clock (defaults to the OS clock). */
  realtimeNs?: () => bigint;
  /** A failed store write or a failing listener must not stop alerts from flowing; the owner logs it. */
  onError?: (error: unknown) => void;
  /**
   * The cursor a new log (nothing persisted yet) starts at; default 0. `--alert-cursor-start` sets it so that
   * the 2^32 wrap can be reached with real entries instead of four billion alerts.
   */
  firstCursor?: number;
}

export const REINIT_CLEAR_REASON = 'the sensor reinitialized and the condition no longer holds.';

export class AlertLog implements AlertSink {
  private readonly store: AlertLogStore | undefined;
  private readonly realtimeNs: () => bigint;
  private readonly onError: (error: unknown) => void;
  private readonly listeners = new Set<() => void>();
  /** Trigger entries of the active alerts by id; Map order = trigger order. */
  private readonly activeById = new Map<string, AlertEntry>();
  /** Alerts an injected fault holds (`hold`): no producer's `clear` ends them until `release`. */
  private readonly held = new Set<string>();
  private log: AlertEntry[] = [];
  /** What snapshot() returns until the next event. */
  private current: AlertLogSnapshot | undefined;
  private nextCursor = 0;
  private overflowed = false;
  private lastRealtime = 0n;

  constructor(options: AlertLogOptions = {}) {
    this.store = options.store;
    this.realtimeNs = options.realtimeNs ?? systemRealtimeNs;
    this.onError = options.onError ?? ((error) => process.emitWarning(`alert log: ${String(error)}`));
    this.nextCursor = options.firstCursor ?? 0;
    const persisted = this.store?.load();
    if (persisted) {
      this.nextCursor = persisted.nextCursor;
      this.overflowed = persisted.overflowed;
      this.log = persisted.log.slice(-ALERT_LOG_CAPACITY).map((e) => Object.freeze({ ...e }));
      for (const entry of persisted.active) this.activeById.set(entry.id, Object.freeze({ ...entry }));
      for (const entry of [...this.log, ...this.activeById.values()]) {
        const realtime = BigInt(entry.realtime);
        if (realtime > this.lastRealtime) this.lastRealtime = realtime;
      }
    }
  }

  raise(id: string, vars?: Record<string, string | number>): void {
    const definition = alertDefinition(id);
    if (this.activeById.has(id)) return;
    const entry: AlertEntry = Object.freeze({
      category: definition.category,
      level: definition.level,
      realtime: this.nextRealtime(),
      active: true,
      msg: definition.msg,
      cursor: this.nextCursor,
      id: definition.id,
      msg_verbose: renderVerbose(definition.msgVerbose, vars),
    });
    this.activeById.set(id, entry);
    this.append(entry);
  }

  /**
   * Raises the alert and keeps it active whatever its producers report (the telemetry thresholds,
   * a reinit's clearing) until `release`: an injected fault holds what it promises for its lifetime.
   */
  hold(id: string, vars?: Record<string, string | number>): void {
    this.held.add(id);
    this.raise(id, vars);
  }

  /** Ends `hold` and clears the alert; its producers own it again (they raise it anew if the condition holds). */
  release(id: string, reason?: string): void {
    if (!this.held.delete(id)) return;
    this.clear(id, reason);
  }

  clear(id: string, reason?: string): void {
    if (this.held.has(id)) return;
    const trigger = this.activeById.get(id);
    if (!trigger) return;
    const entry: AlertEntry = Object.freeze({
      ...trigger,
      realtime: this.nextRealtime(),
      active: false,
      cursor: this.nextCursor,
      msg_verbose: reason ? `${trigger.msg_verbose} Cleared: ${reason}` : trigger.msg_verbose,
    });
    this.activeById.delete(id);
    this.append(entry);
  }

  /**
   * Reinitialization ends the run of the data plane, so the conditions of run-scoped alerts
   * (UDP transmission, configuration, motor) no longer hold: clear them, saying why. Measured
   * conditions (voltage, temperature, link) stay until their monitor sees them recover.
   */
  clearForReinit(reason = REINIT_CLEAR_REASON): void {
    for (const id of [...this.activeById.keys()]) {
      if (alertDefinition(id).scope === 'run') this.clear(id, reason);
    }
  }

  isActive(id: string): boolean {
    return this.activeById.has(id);
  }

  /**
   * The log's state, frozen: the same object until the next logged event, so a reader that renders
   * it (GET /alerts) can keep its rendering for as long as the object is current.
   */
  snapshot(): AlertLogSnapshot {
    this.current ??= Object.freeze({
      active: Object.freeze([...this.activeById.values()]),
      log: Object.freeze([...this.log]),
      nextCursor: this.nextCursor,
      overflowed: this.overflowed,
    });
    return this.current;
  }

  /** The entry logged last. */
  latest(): AlertEntry | undefined {
    return this.log.at(-1);
  }

  /** The `alert_flags` byte of packet headers. */
  flags(): number {
    return alertFlags({ activeCount: this.activeById.size, overflowed: this.overflowed, nextCursor: this.nextCursor });
  }

  /** Called after every logged event (e.g. to push the alert_flags byte to the data plane). */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private append(entry: AlertEntry): void {
    this.current = undefined;
    this.log.push(entry);
    let droppedCursor: number | undefined;
    if (this.log.length > ALERT_LOG_CAPACITY) {
      droppedCursor = this.log.shift()!.cursor;
      this.overflowed = true;
    }
    this.nextCursor = (this.nextCursor + 1) % CURSOR_MODULUS;
    try {
      this.store?.record({ entry, droppedCursor, nextCursor: this.nextCursor, overflowed: this.overflowed });
    } catch (error) {
      this.onError(error);
    }
    for (const listener of this.listeners) {
      try {
        listener();
      } catch (error) {
        this.onError(error);
      }
    }
  }

  /** Strictly increasing, so a clear entry is always later than its trigger even within one clock tick. */
  private nextRealtime(): string {
    const now = this.realtimeNs();
    this.lastRealtime = now > this.lastRealtime ? now : this.lastRealtime + 1n;
    return this.lastRealtime.toString();
  }
}
