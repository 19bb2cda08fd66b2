/**
 * Unit-state faults: alerts, telemetry inputs, link, PTP grandmaster, sync pulses, phase lock,
 * reinit/restart durations and firmware failures. They act through two seams only: the HAL's fault
 * port (src/hal/faults.ts: what the hardware can be made to do wrong) and the device core's fault
 * controls (src/core/fault-controls.ts: what the core lets fault injection change). A fault the
 * unit's HAL offers no port for is refused (409) with the reason.
 *
 * Several rules may hold the same fault; the fault lasts while any of them lives, and the newest
 * rule's value wins for valued faults (temperature, voltage, durations).
 */
import type { Logger } from 'pino';
import { conflict, type UnitAction } from '../model/index.js';
import { faultPort, type HalFaultPort, type TelemetryFaults } from '../hal/index.js';
import type { CoreFaultControls } from '../core/index.js';
import type { SceneObjectPlan } from '../udp/index.js';
import type { FaultTarget } from './fault-target.js';
import {
  type FaultPortPart,
  type TelemetryInput,
  UNIT_FAULT_ACTIONS,
  type UnitFaultRun,
  type UnitTiming,
} from './unit-fault-actions.js';

export type { UnitTiming } from './unit-fault-actions.js';

/** Durations of a real unit (docs/faults.md): about a second to reinit, tens of seconds to reboot. */
export const REALISTIC_TIMING: Readonly<UnitTiming> = { reinitMs: 1000, restartMs: 25_000 };
/** How long a real unit takes to install and first boot a new firmware image. */
export const REALISTIC_FIRMWARE_UPDATE_MS = 60_000;

const RAMP_STEP_MS = 100;

type Valued<T> = { id: string; value: T }[];
const newest = <T>(list: Valued<T>): T | undefined => list.at(-1)?.value;

export class UnitFaults {
  private readonly held = new Map<string, Set<string>>();
  /** The values of valued faults (durations, storage errors, upload limits), by fault, newest last. */
  private readonly valued = new Map<string, Valued<unknown>>();
  /** Objects in the scene and dirt on the window, by rule. */
  private readonly objects = new Map<string, SceneObjectPlan>();
  private readonly ramps = new Map<TelemetryInput, NodeJS.Timeout>();
  private readonly telemetryBase: Partial<Record<TelemetryInput, number>> = {};
  private readonly telemetryRules: Record<TelemetryInput, Valued<number>> = {
    ambientTemperatureC: [],
    supplyVoltageMv: [],
  };

  private readonly port: HalFaultPort;
  private readonly core: CoreFaultControls;

  constructor(
    target: FaultTarget,
    private readonly baseTiming: UnitTiming,
    private readonly log: Logger,
  ) {
    this.port = faultPort(target.hal);
    this.core = target.sensor.faultControls;
    this.port.streams?.setStartDelay(baseTiming.reinitMs);
    this.core.setRebootMs(baseTiming.restartMs);
  }

  /** Why `action` cannot run on this unit, or undefined: the HAL's fault port says what it can fake. */
  unsupported(action: UnitAction): string | undefined {
    const needs = UNIT_FAULT_ACTIONS[action.type].needs;
    if (needs !== undefined && this.port[needs] === undefined)
      return `the ${action.type} fault needs the simulated unit (--hal sim)`;
    return undefined;
  }

  /** Starts the fault of rule `id`; returns what ends it. Throws an ApiError when the unit cannot do it. */
  start(id: string, action: UnitAction): () => void {
    const why = this.unsupported(action);
    if (why) throw conflict(why);
    const entry = UNIT_FAULT_ACTIONS[action.type] as {
      start(run: UnitFaultRun, action: UnitAction, id: string): () => void;
    };
    return entry.start(this.runOf(id), action, id);
  }

  /** The seams and bookkeeping rule `id`'s action starts with. */
  private runOf(id: string): UnitFaultRun {
    return {
      core: this.core,
      baseTiming: this.baseTiming,
      log: this.log,
      part: <P extends FaultPortPart>(name: P) => {
        const part = this.port[name];
        // unsupported() refused the action when its entry's part is missing.
        if (part === undefined) throw new Error(`the fault port has no ${name} part`);
        return part as NonNullable<HalFaultPort[P]>;
      },
      hold: (key, on, off) => this.hold(key, id, on, off),
      pushValue: (key, value, changed) => this.pushValue(key, id, value, changed),
      driveTelemetry: (telemetry, input, target, rampMs) => this.driveTelemetry(telemetry, input, id, target, rampMs),
      placeInScene: (object) => {
        this.objects.set(id, object);
        return this.placeInScene(id);
      },
    };
  }

  /** Hands the scene's objects (with rule `id`'s) to the streams; returns what takes `id`'s away again. */
  private placeInScene(id: string): () => void {
    this.port.streams!.setObjects([...this.objects.values()]);
    return () => {
      this.objects.delete(id);
      this.port.streams?.setObjects([...this.objects.values()]);
    };
  }

  /** Stops ramps and hands the unit back its own timing (the plane closes; its rules have ended). */
  close(): void {
    for (const timer of this.ramps.values()) clearInterval(timer);
    this.port.streams?.setStartDelay(0);
    this.core.setRebootMs(undefined);
    this.core.setStorageFault(undefined);
    if (this.objects.size) this.port.streams?.setObjects([]);
    this.objects.clear();
  }

  /** A fault that is on while any rule holds it: `on` when the first rule comes, `off` when the last goes. */
  private hold(key: string, id: string, on: () => void, off: () => void): () => void {
    const holders = this.held.get(key) ?? new Set<string>();
    this.held.set(key, holders);
    if (holders.size === 0) on();
    holders.add(id);
    return () => {
      if (!holders.delete(id) || holders.size > 0) return;
      off();
    };
  }

  /** A valued fault: `changed` gets the newest value when the rule comes and when it goes. */
  private pushValue<T>(key: string, id: string, value: T, changed: (newest: T | undefined) => void): () => void {
    const list = (this.valued.get(key) ?? []) as Valued<T>;
    this.valued.set(key, list);
    list.push({ id, value });
    changed(newest(list));
    return () => {
      const at = list.findIndex((v) => v.id === id);
      if (at >= 0) list.splice(at, 1);
      changed(newest(list));
    };
  }

  /**
   * Moves a telemetry model input to `target` (linearly over `rampMs`); the internal temperature is
   * settled at each step, so the threshold monitor sees the values the rule asks for and raises and
   * clears its alerts itself. When the last such rule ends, the input goes back to its value before.
   */
  private driveTelemetry(
    telemetry: TelemetryFaults,
    input: TelemetryInput,
    id: string,
    target: number,
    rampMs: number,
  ): () => void {
    const rules = this.telemetryRules[input];
    if (rules.length === 0) this.telemetryBase[input] = telemetry.inputs()[input];
    rules.push({ id, value: target });
    this.rampTo(telemetry, input, target, rampMs);
    return () => {
      const at = rules.findIndex((v) => v.id === id);
      if (at < 0) return;
      rules.splice(at, 1);
      this.rampTo(telemetry, input, newest(rules) ?? this.telemetryBase[input]!, 0);
    };
  }

  private rampTo(telemetry: TelemetryFaults, input: TelemetryInput, target: number, rampMs: number): void {
    const running = this.ramps.get(input);
    if (running) clearInterval(running);
    this.ramps.delete(input);
    const set = (value: number) => {
      telemetry.setInputs({ [input]: value });
      telemetry.settle();
    };
    if (rampMs <= 0) {
      set(target);
      return;
    }
    const from = telemetry.inputs()[input];
    const started = Date.now();
    const timer = setInterval(() => {
      const progress = Math.min(1, (Date.now() - started) / rampMs);
      set(from + (target - from) * progress);
      if (progress >= 1) {
        clearInterval(timer);
        this.ramps.delete(input);
      }
    }, RAMP_STEP_MS);
    timer.unref();
    this.ramps.set(input, timer);
  }
}
