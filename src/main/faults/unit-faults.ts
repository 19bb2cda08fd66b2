/**
 * Unit-state faults: alerts, telemetry inputs, link, PTP grandmaster, sync pulses, phase lock,
 * reinit/restart durations and firmware failures. They act through the models the simulated unit
 * already has (SimTelemetry's inputs, the alert log, the firmware HAL's `sim.boot=fail` path) and,
 * where a model has no input for the fault, by wrapping one method of the HAL part once (interpose).
 *
 * Several rules may hold the same fault; the fault lasts while any of them lives, and the newest
 * rule's value wins for valued faults (temperature, voltage, durations).
 */
import { ALERT_IDS, ApiError, conflict, MANIFEST_KEYS, type UnitAction } from '../../model/index.js';
import { SimTelemetry, type SimTelemetryInputs } from '../../hal/sim/index.js';
import type { Hal, PtpDataSets, TimingInputs } from '../../hal/index.js';
import type { Sensor } from '../../core/index.js';
import type { FaultTarget } from './fault-target.js';
import { interpose } from './interpose.js';

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

export class UnitFaults {
  private readonly held = new Map<string, Set<string>>();
  private readonly reinitMs: Valued<number> = [];
  private readonly restartMs: Valued<number> = [];
  private readonly uploadRefuse: Valued<number> = [];
  private readonly restores: (() => void)[] = [];
  private readonly ramps = new Map<keyof SimTelemetryInputs, NodeJS.Timeout>();
  private readonly telemetryBase: Partial<SimTelemetryInputs> = {};
  private readonly telemetryRules = {
    ambientTemperatureC: [] as Valued<number>,
    supplyVoltageMv: [] as Valued<number>,
  };
  private syncPulseSince = 0;
  private readonly baseRestartMs: number;

  private readonly sensor: Sensor;
  private readonly hal: Hal;

  constructor(
    target: FaultTarget,
    private readonly baseTiming: UnitTiming,
  ) {
    this.sensor = target.sensor;
    this.hal = target.hal;
    this.installTimingHook();
    this.installFirmwareHooks();
    this.installSimHooks();
    this.baseRestartMs = baseTiming.restartMs ?? this.sensor.simulatedRebootMs;
    this.sensor.simulatedRebootMs = this.baseRestartMs;
  }

  /** Why `action` cannot run on this unit, or undefined. */
  unsupported(action: UnitAction): string | undefined {
    const sim = this.hal.kind === 'sim';
    const needsSim = ['temperature', 'voltage', 'link_down', 'ptp_grandmaster', 'sync_pulse_lock', 'phase_lock_lost'];
    if (!sim && needsSim.includes(action.type)) return `the ${action.type} fault needs the simulated unit (--hal sim)`;
    if (action.type === 'firmware_boot_fail' && !sim)
      return 'the firmware_boot_fail fault needs the simulated unit (--hal sim)';
    return undefined;
  }

  /** Starts the fault of rule `id`; returns what ends it. Throws an ApiError when the unit cannot do it. */
  start(id: string, action: UnitAction): () => void {
    const why = this.unsupported(action);
    if (why) throw conflict(why);
    switch (action.type) {
      case 'alert':
        return this.hold(
          `alert:${action.id}`,
          id,
          () => this.sensor.alerts.hold(action.id, action.vars),
          () => this.sensor.alerts.release(action.id, CLEARED),
        );
      case 'temperature':
        return this.driveTelemetry('ambientTemperatureC', id, action.ambient_c, action.ramp_ms);
      case 'voltage':
        return this.driveTelemetry('supplyVoltageMv', id, action.supply_mv, action.ramp_ms);
      case 'link_down':
        return this.hold(
          'link_down',
          id,
          () => this.sensor.alerts.hold(ALERT_IDS.ETHERNET_LINK_BAD, { speed: 0, duplex: 'no link,' }),
          () => this.sensor.alerts.release(ALERT_IDS.ETHERNET_LINK_BAD, 'the link is up again'),
        );
      case 'ptp_grandmaster':
        return this.hold(
          'ptp_grandmaster',
          id,
          () => undefined,
          () => undefined,
        );
      case 'sync_pulse_lock':
        return this.hold(
          'sync_pulse_lock',
          id,
          () => (this.syncPulseSince = Date.now()),
          () => undefined,
        );
      case 'phase_lock_lost':
        return this.hold(
          'phase_lock_lost',
          id,
          () => this.simTelemetry()?.setInputs({ motorDisturbed: true }),
          () => this.simTelemetry()?.setInputs({ motorDisturbed: false }),
        );
      case 'reinit_time':
        return this.pushValue(this.reinitMs, id, action.ms);
      case 'restart_time': {
        const end = this.pushValue(this.restartMs, id, action.ms, () => {
          this.sensor.simulatedRebootMs = newest(this.restartMs) ?? this.baseRestartMs;
        });
        return end;
      }
      case 'restart':
        void this.sensor.restart().catch((err: unknown) => this.sensor.log.error({ err }, 'injected restart failed'));
        return () => undefined;
      case 'firmware_boot_fail':
        return this.hold(
          'firmware_boot_fail',
          id,
          () => undefined,
          () => undefined,
        );
      case 'firmware_upload_refuse':
        return this.pushValue(this.uploadRefuse, id, action.after_bytes);
    }
  }

  /** Puts every hooked method back and stops ramps (the plane closes). */
  close(): void {
    for (const timer of this.ramps.values()) clearInterval(timer);
    for (const restore of this.restores.splice(0)) restore();
    this.sensor.simulatedRebootMs = this.baseRestartMs;
  }

  private isHeld(key: string): boolean {
    return (this.held.get(key)?.size ?? 0) > 0;
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

  private pushValue(
    list: Valued<number>,
    id: string,
    value: number,
    changed: () => void = () => undefined,
  ): () => void {
    list.push({ id, value });
    changed();
    return () => {
      const at = list.findIndex((v) => v.id === id);
      if (at >= 0) list.splice(at, 1);
      changed();
    };
  }

  private simTelemetry(): SimTelemetry | undefined {
    const telemetry = this.hal.telemetry;
    return telemetry instanceof SimTelemetry ? telemetry : undefined;
  }

  /**
   * Moves a telemetry model input to `target` (linearly over `rampMs`); the internal temperature is
   * settled at each step, so the threshold monitor sees the values the rule asks for and raises and
   * clears its alerts itself. When the last such rule ends, the input goes back to its value before.
   */
  private driveTelemetry(
    input: 'ambientTemperatureC' | 'supplyVoltageMv',
    id: string,
    target: number,
    rampMs: number,
  ): () => void {
    const telemetry = this.simTelemetry()!;
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

  private rampTo(
    telemetry: SimTelemetry,
    input: 'ambientTemperatureC' | 'supplyVoltageMv',
    target: number,
    rampMs: number,
  ): void {
    const running = this.ramps.get(input);
    if (running) clearInterval(running);
    this.ramps.delete(input);
    const set = (value: number) => {
      telemetry.setInputs({ [input]: value });
      telemetry.settleTemperature();
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

  /**
   * A reinit with a duration: the old streams stop, the unit stays INITIALIZING (metadata answers
   * 503) for that long, then the new streams start. The device core has set INITIALIZING already.
   */
  private installTimingHook(): void {
    const lidar = this.hal.lidar;
    this.restores.push(
      interpose(lidar, 'apply', (original) => async (run) => {
        const ms = newest(this.reinitMs) ?? this.baseTiming.reinitMs;
        if (run && ms > 0) {
          await original(null);
          await new Promise((resolve) => setTimeout(resolve, ms));
        }
        return original(run);
      }),
    );
  }

  private installFirmwareHooks(): void {
    const firmwareHal = this.hal.firmware;
    this.restores.push(
      // The same path as an image built with `sim.boot=fail`: the sim HAL decides from the manifest.
      interpose(firmwareHal, 'bootImage', (original) => (image, kind) => {
        if (kind !== 'trial' || !this.isHeld('firmware_boot_fail')) return original(image, kind);
        return original({ ...image, manifest: { ...image.manifest, [MANIFEST_KEYS.simBoot]: 'fail' } }, kind);
      }),
    );
    this.restores.push(
      interpose(this.sensor.firmware, 'install', (original) => (body, contentLength) => {
        const limit = newest(this.uploadRefuse);
        return original(limit === undefined ? body : refusedAfter(body, limit), contentLength);
      }),
    );
  }

  private installSimHooks(): void {
    if (this.hal.kind !== 'sim') return;
    const { network, time } = this.hal;
    this.restores.push(
      interpose(network, 'facts', (original) => async () => {
        const facts = await original();
        return this.isHeld('link_down') ? { ...facts, carrier: false } : facts;
      }),
    );
    let lastSlave: { from: PtpDataSets; to: PtpDataSets } | undefined;
    this.restores.push(
      interpose(time, 'ptpDataSets', (original) => async () => {
        const sets = await original();
        if (!this.isHeld('ptp_grandmaster')) return sets;
        // The same object while nothing changes: the time service caches the document's JSON by identity.
        if (lastSlave?.from !== sets) lastSlave = { from: sets, to: withGrandmaster(sets) };
        return lastSlave.to;
      }),
    );
    this.restores.push(
      interpose(time, 'timingInputs', (original) => () => {
        const inputs = original();
        return this.isHeld('sync_pulse_lock') ? withSyncPulses(inputs, Date.now() - this.syncPulseSince) : inputs;
      }),
    );
  }
}

/** A grandmaster on the network: ptp4l's port turns SLAVE and follows it (values of a lab grandmaster). */
export const INJECTED_GRANDMASTER = 'ac1f6b.fffe.0a0b0c';

export function withGrandmaster(sets: PtpDataSets): PtpDataSets {
  const parentPort = `${INJECTED_GRANDMASTER}-1`;
  return {
    ...sets,
    current_data_set: { steps_removed: 1, offset_from_master: 12, mean_path_delay: 480 },
    parent_data_set: {
      ...sets.parent_data_set,
      parent_port_identity: parentPort,
      grandmaster_identity: INJECTED_GRANDMASTER,
      gm_clock_class: 6,
      gm_clock_accuracy: 0x21,
      gm_offset_scaled_log_variance: 0x4e5d,
      grandmaster_priority1: 128,
      grandmaster_priority2: 128,
    },
    port_data_set: { ...sets.port_data_set, port_state: 'SLAVE' },
    time_properties_data_set: {
      ...sets.time_properties_data_set,
      current_utc_offset_valid: 1,
      ptp_timescale: 1,
      time_traceable: 1,
      frequency_traceable: 1,
      time_source: 0x20,
    },
    time_status_np: { ...sets.time_status_np, master_offset: 12, gm_present: true, gm_identity: INJECTED_GRANDMASTER },
  };
}

/** 1 Hz pulses arriving since the fault began, locked. */
export function withSyncPulses(inputs: TimingInputs, elapsedMs: number): TimingInputs {
  const count = Math.floor(elapsedMs / 1000) + 1;
  return { ...inputs, syncPulseIn: { count, count_unfiltered: count, last_period_nsec: 1_000_000_000, locked: true } };
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
