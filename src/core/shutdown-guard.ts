/**
 * What a unit does at its protection limits (docs/faults.md, "Shutdown levels"):
 * - at a shutdown level (an active OVERTEMP_ERROR or INPUT_VOLTAGE_*_ERROR alert) it stops measuring: status
 *   ERROR, no packets, configuration readable, metadata not (as a real unit in ERROR);
 * - between the temperature warning and shutdown levels the lidar packet header says so (docs/udp-packets.md, bytes
 *   16-19): `thermal_shutdown` IMMINENT with `countdown_thermal_shutdown`, and `shot_limiting` steps 2-9 as the
 *   laser power is reduced; just below the warning level, while the temperature rises, `shot_limiting` IMMINENT
 *   with `countdown_shot_limiting`;
 * - once every shutdown alert has cleared (each clears past its hysteresis band), it comes back by itself.
 * Pure apart from the clock: the device core (sensor.ts) acts on what it decides.
 */
import { ALERT_IDS } from '../model/index.js';
import { TELEMETRY_THRESHOLDS } from './telemetry-monitor.js';

/** The alerts at whose level the unit shuts down, in the order their cause is named. */
export const SHUTDOWN_ALERTS: readonly string[] = [
  ALERT_IDS.OVERTEMP_ERROR,
  ALERT_IDS.INPUT_VOLTAGE_LOW_ERROR,
  ALERT_IDS.INPUT_VOLTAGE_HIGH_ERROR,
];

const limitOf = (id: string) => TELEMETRY_THRESHOLDS.find((rule) => rule.id === id)!.limit;
/** The same limits the alerts use: one source of truth (telemetry-monitor.ts). */
const WARNING_C = limitOf(ALERT_IDS.OVERTEMP_WARNING);
const SHUTDOWN_C = limitOf(ALERT_IDS.OVERTEMP_ERROR);
/** How far below the warning level shot limiting is announced as IMMINENT (while the temperature rises). */
export const SHOT_LIMITING_NOTICE_C = 3;
/** Countdowns are seconds, a u8: 255 stands for "not within 255 s at the present rate" (or not rising). */
const COUNTDOWN_MAX = 255;

export const THERMAL_STATE = { NORMAL: 0, IMMINENT: 1 } as const;

/** Bytes 16-19 of the lidar packet header. */
export interface ThermalHeader {
  countdown_thermal_shutdown: number;
  countdown_shot_limiting: number;
  thermal_shutdown: number;
  shot_limiting: number;
}

export const NORMAL_HEADER: Readonly<ThermalHeader> = {
  countdown_thermal_shutdown: 0,
  countdown_shot_limiting: 0,
  thermal_shutdown: THERMAL_STATE.NORMAL,
  shot_limiting: THERMAL_STATE.NORMAL,
};

/** Seconds until `limit` at `ratePerS`, 1..255 (255 when not rising). */
function countdown(temperatureC: number, limit: number, ratePerS: number): number {
  if (ratePerS <= 0) return COUNTDOWN_MAX;
  return Math.max(1, Math.min(COUNTDOWN_MAX, Math.ceil((limit - temperatureC) / ratePerS)));
}

/**
 * The header fields for an internal temperature rising at `ratePerS` (°C per second; ≤ 0 when steady or
 * cooling). Shot-limiting steps: 2 at the warning level up to 9 just below shutdown, in eight equal bands.
 */
export function thermalHeader(temperatureC: number, ratePerS: number): ThermalHeader {
  if (temperatureC >= WARNING_C && temperatureC < SHUTDOWN_C) {
    const band = Math.floor((8 * (temperatureC - WARNING_C)) / (SHUTDOWN_C - WARNING_C));
    return {
      countdown_thermal_shutdown: countdown(temperatureC, SHUTDOWN_C, ratePerS),
      countdown_shot_limiting: 0,
      thermal_shutdown: THERMAL_STATE.IMMINENT,
      shot_limiting: 2 + Math.min(7, band),
    };
  }
  if (temperatureC >= WARNING_C - SHOT_LIMITING_NOTICE_C && temperatureC < WARNING_C && ratePerS > 0) {
    return {
      ...NORMAL_HEADER,
      countdown_shot_limiting: countdown(temperatureC, WARNING_C, ratePerS),
      shot_limiting: THERMAL_STATE.IMMINENT,
    };
  }
  return { ...NORMAL_HEADER };
}

/** The header as the u32 the data plane stamps into bytes 16-19 (little-endian: byte 16 lowest). */
export function packThermalHeader(h: ThermalHeader): number {
  return (
    (h.countdown_thermal_shutdown |
      (h.countdown_shot_limiting << 8) |
      ((h.thermal_shutdown & 0xf) << 16) |
      ((h.shot_limiting & 0xf) << 24)) >>>
    0
  );
}

/** Follows the internal temperature's rate of change between samples (°C per second). */
export class TemperatureTrend {
  private last: { atMs: number; c: number } | undefined;
  private rate = 0;

  /** Takes a sample and returns the rate; samples closer than `minGapMs` keep the previous rate. */
  sample(c: number, atMs: number, minGapMs = 500): number {
    if (!this.last) {
      this.last = { atMs, c };
      return this.rate;
    }
    const gap = atMs - this.last.atMs;
    if (gap < minGapMs) return this.rate;
    this.rate = ((c - this.last.c) * 1000) / gap;
    this.last = { atMs, c };
    return this.rate;
  }
}

/** The shutdown alert that holds, if any (the first of SHUTDOWN_ALERTS that is active). */
export function shutdownCause(isActive: (id: string) => boolean): string | undefined {
  return SHUTDOWN_ALERTS.find(isActive);
}
