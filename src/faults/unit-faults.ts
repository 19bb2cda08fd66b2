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
import { ALERT_IDS, ApiError, conflict, type StorageFaultError, type UnitAction } from '../model/index.js';
import { faultPort, type HalFaultPort, type TelemetryFaults } from '../hal/index.js';
import type { CoreFaultControls } from '../core/index.js';
import type { SceneObjectPlan } from '../udp/index.js';
import type { FaultTarget } from './fault-target.js';

export interface UnitTiming {
  /** Extra time a reinitialization takes (INITIALIZING, no packets); 0 = as fast as the host allows. */
  reinitMs: number;
  /** How long a restart keeps the unit unreachable; undefined: the unit's own setting. */
  restartMs?: number;
}

/** Durations of a real unit (docs/faults.md): about a second to reinit, tens of seconds to reboot. */
export const REALISTIC_TIMING: Readonly<UnitTiming> = { reinitMs: 1000, restartMs: 25_000 };
/** How long a real unit takes to install and first boot a new firmware image. */
export const REALISTIC_FIRMWARE_UPDATE_MS = 60_000;

const RAMP_STEP_MS = 100;
const CLEARED = 'the injected fault was removed';

type Valued<T> = { id: string; value: T }[];
const newest = <T>(list: Valued<T>): T | undefined => list.at(-1)?.value;

type TelemetryInput = 'ambientTemperatureC' | 'supplyVoltageMv';

export class UnitFaults {
  private readonly held = new Map<string, Set<string>>();
  private readonly reinitMs: Valued<number> = [];
  private readonly restartMs: Valued<number> = [];
  private readonly uploadRefuse: Valued<number> = [];
  private readonly storage: Valued<StorageFaultError> = [];
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
    const { streams, telemetry, link, time, firmwareBoot } = this.port;
    const offered: Partial<Record<UnitAction['type'], unknown>> = {
      temperature: telemetry,
      voltage: telemetry,
      phase_lock_lost: telemetry,
      link_down: link,
      ptp_grandmaster: time,
      sync_pulse_lock: time,
      firmware_boot_fail: firmwareBoot,
      reinit_time: streams,
      object: streams,
      window_soil: streams,
    };
    if (action.type in offered && offered[action.type] === undefined)
      return `the ${action.type} fault needs the simulated unit (--hal sim)`;
    return undefined;
  }

  /** Starts the fault of rule `id`; returns what ends it. Throws an ApiError when the unit cannot do it. */
  start(id: string, action: UnitAction): () => void {
    const why = this.unsupported(action);
    if (why) throw conflict(why);
    // unsupported() has checked that the port offers the part each case uses.
    const { telemetry, link, time, firmwareBoot } = this.port;
    switch (action.type) {
      case 'alert':
        return this.hold(
          `alert:${action.id}`,
          id,
          () => this.core.holdAlert(action.id, action.vars),
          () => this.core.releaseAlert(action.id, CLEARED),
        );
      case 'temperature':
        return this.driveTelemetry(telemetry!, 'ambientTemperatureC', id, action.ambient_c, action.ramp_ms);
      case 'voltage':
        return this.driveTelemetry(telemetry!, 'supplyVoltageMv', id, action.supply_mv, action.ramp_ms);
      case 'link_down':
        return this.hold(
          'link_down',
          id,
          () => {
            link!.setCarrier(false);
            this.core.holdAlert(ALERT_IDS.ETHERNET_LINK_BAD, { speed: 0, duplex: 'no link,' });
          },
          () => {
            link!.setCarrier(true);
            this.core.releaseAlert(ALERT_IDS.ETHERNET_LINK_BAD, 'the link is up again');
          },
        );
      case 'ptp_grandmaster':
        return this.hold(
          'ptp_grandmaster',
          id,
          () => time!.setGrandmaster(true),
          () => time!.setGrandmaster(false),
        );
      case 'sync_pulse_lock':
        return this.hold(
          'sync_pulse_lock',
          id,
          () => time!.setSyncPulses(Date.now()),
          () => time!.setSyncPulses(undefined),
        );
      case 'phase_lock_lost':
        return this.hold(
          'phase_lock_lost',
          id,
          () => telemetry!.setInputs({ motorDisturbed: true }),
          () => telemetry!.setInputs({ motorDisturbed: false }),
        );
      case 'reinit_time':
        return this.pushValue(this.reinitMs, id, action.ms, () =>
          this.port.streams!.setStartDelay(newest(this.reinitMs) ?? this.baseTiming.reinitMs),
        );
      case 'restart_time':
        return this.pushValue(this.restartMs, id, action.ms, () =>
          this.core.setRebootMs(newest(this.restartMs) ?? this.baseTiming.restartMs),
        );
      case 'restart':
        void this.core.restart().catch((err: unknown) => this.log.error({ err }, 'injected restart failed'));
        return () => undefined;
      case 'firmware_boot_fail':
        return this.hold(
          'firmware_boot_fail',
          id,
          () => firmwareBoot!.setTrialBootFails(true),
          () => firmwareBoot!.setTrialBootFails(false),
        );
      case 'object':
        this.objects.set(id, {
          id,
          sizeM: action.size_m,
          positionM: action.position_m,
          velocityMS: action.velocity_m_s,
          startMs: Date.now(),
        });
        return this.placeInScene(id);
      case 'window_soil':
        this.objects.set(id, {
          kind: 'soil',
          id,
          azimuthDeg: [action.azimuth_from_deg, action.azimuth_to_deg],
          beams: [action.first_beam, action.last_beam],
          level: action.level,
        });
        return this.placeInScene(id);
      case 'storage':
        return this.pushValue(this.storage, id, action.error, () => this.core.setStorageFault(newest(this.storage)));
      case 'firmware_upload_refuse':
        return this.pushValue(this.uploadRefuse, id, action.after_bytes, () => {
          const limit = newest(this.uploadRefuse);
          this.core.setUploadFilter(limit === undefined ? undefined : (body) => refusedAfter(body, limit));
        });
    }
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

  /** A valued fault: `changed` runs when the rule comes and when it goes (the newest value then wins). */
  private pushValue<T>(list: Valued<T>, id: string, value: T, changed: () => void): () => void {
    list.push({ id, value });
    changed();
    return () => {
      const at = list.findIndex((v) => v.id === id);
      if (at >= 0) list.splice(at, 1);
      changed();
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

/** The upload body, refused once more than `limit` bytes have arrived. */
async function* refusedAfter(body: AsyncIterable<Buffer | string>, limit: number): AsyncIterable<Buffer | string> {
  let received = 0;
  for await (const chunk of body) {
    received += chunk.length;
    if (received > limit) {
      throw new ApiError(
        'unavailable',
        `the unit refused the firmware upload after ${limit} bytes (injected fault); nothing was installed`,
        undefined,
        { 'Retry-After': '1' },
      );
    }
    yield chunk;
  }
}
