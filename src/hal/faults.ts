/**
 * The HAL's fault port: what fault injection (src/faults) can make the unit's hardware do wrong.
 * Each HAL part offers its own piece as its optional `faults` member; a part that cannot fake a fault
 * (a real unit's clocks, interface, sensors and boot) leaves it out, and `faultPort` collects what the
 * parts of a HAL offer. The pieces are read from the parts each time rather than stored on the HAL, so
 * a HAL whose parts were replaced (tests wrap single parts) offers exactly what its parts do.
 */
import type { UdpFaultRule } from '../model/index.js';
import type { SceneObjectPlan, UdpFaultCount } from '../udp/index.js';

/** The data streams (both HALs: the same emitter serves the simulated and the real unit). */
export interface StreamFaults {
  /** The packet rules the data plane applies from now on (replacing the previous set). */
  setRules(rules: readonly UdpFaultRule[]): void;
  /** Where the data plane reports what the rules have done (undefined: nowhere). */
  onCounts(listener: ((counts: UdpFaultCount[], spent: string[]) => void) | undefined): void;
  /** How long a new run's streams wait before they start (a slow reinitialization); 0: at once. */
  setStartDelay(ms: number): void;
  /** The objects in the simulated scene from now on (the `object` unit fault); empty: none. */
  setObjects(objects: SceneObjectPlan[]): void;
}

/** Inputs of the telemetry model that a fault moves. */
export interface TelemetryFaultInputs {
  /** Air temperature around the unit, °C. */
  ambientTemperatureC: number;
  /** Voltage at the power supply, mV. */
  supplyVoltageMv: number;
  /** The motor cannot hold its phase: phase lock LOST. */
  motorDisturbed: boolean;
}

/** The telemetry model (sim). */
export interface TelemetryFaults {
  inputs(): Readonly<TelemetryFaultInputs>;
  setInputs(inputs: Partial<TelemetryFaultInputs>): void;
  /** Jumps to the internal temperature the unit settles at under the current inputs. */
  settle(): void;
}

/** The Ethernet link (sim). */
export interface LinkFaults {
  setCarrier(up: boolean): void;
}

/** The clocks' inputs (sim). */
export interface TimeFaults {
  /** A PTP grandmaster on the network (ptp4l's port follows it as SLAVE), or none. */
  setGrandmaster(present: boolean): void;
  /** 1 Hz pulses locked on SYNC_PULSE_IN since `sinceMs` (epoch ms), or none (undefined). */
  setSyncPulses(sinceMs: number | undefined): void;
}

/** The boot of a new firmware image (sim). */
export interface FirmwareBootFaults {
  /** Every trial boot of a new image fails (as an image built with `sim.boot=fail`), or none does. */
  setTrialBootFails(fail: boolean): void;
}

/** Everything of a HAL that can be made to misbehave; undefined where the HAL cannot fake it. */
export interface HalFaultPort {
  readonly streams?: StreamFaults;
  readonly telemetry?: TelemetryFaults;
  readonly link?: LinkFaults;
  readonly time?: TimeFaults;
  readonly firmwareBoot?: FirmwareBootFaults;
}

/** The parts of a HAL, as far as their fault ports go (a `Hal` is one; named so to keep this file below types.ts). */
interface FaultingParts {
  streams: { faults?: StreamFaults };
  telemetry: { faults?: TelemetryFaults };
  network: { faults?: LinkFaults };
  time: { faults?: TimeFaults };
  firmware: { faults?: FirmwareBootFaults };
}

export function faultPort(hal: FaultingParts): HalFaultPort {
  return {
    streams: hal.streams.faults,
    telemetry: hal.telemetry.faults,
    link: hal.network.faults,
    time: hal.time.faults,
    firmwareBoot: hal.firmware.faults,
  };
}
