/**
 * Telemetry of the simulated unit: a small physical model, evaluated lazily at each read.
 *
 * - Power draw from what the unit runs: electronics always; in NORMAL the motor (more at 20 Hz)
 *   and the lasers (more columns per second, fewer with a narrow window at multipliers other
 *   than 1x, as the spec says). About 15-19 W running, 5 W in STANDBY.
 * - The supply (24 V by default) feeds the unit through the cable and input stage (0.5 Ω), so
 *   input voltage = supply − current × 0.5 Ω and current = power / input voltage; a little
 *   measurement noise on both.
 * - Internal temperature relaxes exponentially (time constant 5 min) toward
 *   ambient + 2.4 °C/W × power, from ambient at power-on.
 * - phase_lock_status: DISABLED unless phase_lock_enable; LOST while the motor is disturbed
 *   (an input of the model) or stopped; otherwise LOCKED. The spec states that loss of lock is not
 *   indicated when time synchronization is lost, so `timeSourceLost` leaves it LOCKED: the motor
 *   keeps locking to the free-running clock.
 *
 * Tests and fault injection change the model's inputs through `setInputs` (supply voltage,
 * ambient temperature, time source lost, motor disturbance) and can let the temperature reach
 * its steady state at once with `settleTemperature`.
 */
import {
  azimuthWindowWidthMdeg,
  columnsPerFrame,
  frameRateHz,
  FULL_TURN_MDEG,
  type SensorConfig,
} from '../../model/index.js';
import type { TelemetryFaultInputs, TelemetryFaults } from '../faults.js';
import type { PhaseLockStatus, TelemetryHal, TelemetryReading, TelemetryRun } from '../telemetry.js';

/** Supply voltage, ambient temperature and motor disturbance (the fault port's inputs), and: */
export interface SimTelemetryInputs extends TelemetryFaultInputs {
  /** The time source (PTP, sync pulse) is lost. Does not show as LOST (see the module comment). */
  timeSourceLost: boolean;
}

export interface SimTelemetryOptions {
  /** Monotonic clock, ns; the model integrates temperature over it. Default process.hrtime. */
  monotonicNs?: () => bigint;
  /** Uniform [0, 1) source of measurement noise. Default Math.random. */
  random?: () => number;
  inputs?: Partial<SimTelemetryInputs>;
}

export const DEFAULT_SIM_TELEMETRY_INPUTS: Readonly<SimTelemetryInputs> = {
  supplyVoltageMv: 24_000,
  ambientTemperatureC: 25,
  timeSourceLost: false,
  motorDisturbed: false,
};

const ELECTRONICS_W = 8.5;
const STANDBY_W = 5;
const MOTOR_W = { 10: 3.5, 20: 5.5 } as const;
/** Laser power at the highest firing rate (2048 or 1024x20 columns: 20480 columns/s), of which part is fixed. */
const LASER_BASE_W = 2.5;
const LASER_RATE_W = 2.5;
const MAX_COLUMNS_PER_S = 20_480;
const INPUT_RESISTANCE_OHM = 0.5;
const THERMAL_RESISTANCE_C_PER_W = 2.4;
const THERMAL_TIME_CONSTANT_S = 300;
const VOLTAGE_NOISE_MV = 15;
const CURRENT_NOISE_MA = 4;

/** Electrical power the unit draws while running `config` (null: between runs, electronics only). */
export function powerDrawW(config: Readonly<SensorConfig> | null): number {
  if (config === null) return ELECTRONICS_W;
  if (config.operating_mode === 'STANDBY') return STANDBY_W;
  const columns = columnsPerFrame(config.lidar_mode);
  const rate = frameRateHz(config.lidar_mode) as 10 | 20;
  const laserDuty = laserDutyFraction(config);
  const laserW = (LASER_BASE_W + (LASER_RATE_W * columns * rate) / MAX_COLUMNS_PER_S) * laserDuty;
  return ELECTRONICS_W + MOTOR_W[rate] + laserW;
}

/**
 * Share of full laser power: at 1x the lasers fire all around whatever the window; at other
 * multipliers they fire only inside azimuth_window, with energy per shot scaled by the multiplier.
 */
function laserDutyFraction(config: Readonly<SensorConfig>): number {
  if (config.signal_multiplier === 1) return 1;
  const widthMdeg = azimuthWindowWidthMdeg(config.azimuth_window);
  return Math.min(1, config.signal_multiplier * (widthMdeg / FULL_TURN_MDEG));
}

export class SimTelemetry implements TelemetryHal {
  private readonly monotonicNs: () => bigint;
  private readonly random: () => number;
  private inputsNow: SimTelemetryInputs;
  private run: TelemetryRun | null = null;
  private timestampOffsetNs = 0n;
  private temperatureC: number;
  private lastUpdateNs: bigint;

  constructor(options: SimTelemetryOptions = {}) {
    this.monotonicNs = options.monotonicNs ?? (() => process.hrtime.bigint());
    this.random = options.random ?? Math.random;
    this.inputsNow = { ...DEFAULT_SIM_TELEMETRY_INPUTS, ...options.inputs };
    this.temperatureC = this.inputsNow.ambientTemperatureC;
    this.lastUpdateNs = this.monotonicNs();
  }

  /** Fault injection moves the model's inputs, as tests do. */
  readonly faults: TelemetryFaults = {
    inputs: () => this.inputs(),
    setInputs: (inputs) => this.setInputs(inputs),
    settle: () => this.settleTemperature(),
  };

  applyRun(run: TelemetryRun | null): void {
    this.integrateTemperature();
    this.run = run;
    if (run) this.timestampOffsetNs = run.timestampOffsetNs;
  }

  setInputs(inputs: Partial<SimTelemetryInputs>): void {
    // The past is integrated under the old inputs before the new ones apply.
    this.integrateTemperature();
    this.inputsNow = { ...this.inputsNow, ...inputs };
  }

  inputs(): Readonly<SimTelemetryInputs> {
    return { ...this.inputsNow };
  }

  /** Jumps to the temperature the unit settles at under the current inputs and run (as if long enough had passed). */
  settleTemperature(): void {
    this.integrateTemperature();
    this.temperatureC = this.steadyStateTemperatureC();
  }

  async read(): Promise<TelemetryReading> {
    this.integrateTemperature();
    const { voltageMv, currentMa } = this.electrical();
    return {
      input_current_ma: Math.max(0, Math.round(currentMa + this.noise(CURRENT_NOISE_MA))),
      input_voltage_mv: Math.max(0, Math.round(voltageMv + this.noise(VOLTAGE_NOISE_MV))),
      internal_temperature_deg_c: Math.round(this.temperatureC),
      phase_lock_status: this.phaseLockStatus(),
      timestamp_ns: process.hrtime.bigint() + this.timestampOffsetNs,
    };
  }

  async close(): Promise<void> {}

  private config(): Readonly<SensorConfig> | null {
    return this.run?.config ?? null;
  }

  private phaseLockStatus(): PhaseLockStatus {
    const config = this.config();
    if (!config?.phase_lock_enable) return 'DISABLED';
    const motorSpinning = config.operating_mode === 'NORMAL';
    return motorSpinning && !this.inputsNow.motorDisturbed ? 'LOCKED' : 'LOST';
  }

  /** Solves V_in = V_supply − I·R with V_in·I = P for the input current I. */
  private electrical(): { voltageMv: number; currentMa: number } {
    const supplyV = this.inputsNow.supplyVoltageMv / 1000;
    const powerW = powerDrawW(this.config());
    const discriminant = supplyV * supplyV - 4 * INPUT_RESISTANCE_OHM * powerW;
    // Below the point where the supply can deliver the power at all, the input stage browns out at half the supply.
    const currentA =
      discriminant > 0
        ? (supplyV - Math.sqrt(discriminant)) / (2 * INPUT_RESISTANCE_OHM)
        : supplyV / (2 * INPUT_RESISTANCE_OHM);
    return { voltageMv: (supplyV - currentA * INPUT_RESISTANCE_OHM) * 1000, currentMa: currentA * 1000 };
  }

  private steadyStateTemperatureC(): number {
    return this.inputsNow.ambientTemperatureC + THERMAL_RESISTANCE_C_PER_W * powerDrawW(this.config());
  }

  /** Exact first-order response over the time since the last update, power and ambient held constant meanwhile. */
  private integrateTemperature(): void {
    const now = this.monotonicNs();
    const elapsedS = Number(now - this.lastUpdateNs) / 1e9;
    this.lastUpdateNs = now;
    if (elapsedS <= 0) return;
    const target = this.steadyStateTemperatureC();
    this.temperatureC = target + (this.temperatureC - target) * Math.exp(-elapsedS / THERMAL_TIME_CONSTANT_S);
  }

  private noise(amplitude: number): number {
    return (this.random() * 2 - 1) * amplitude;
  }
}
