/**
 * What each fault action takes: its plane's actions and their numeric parameters with their ranges and
 * defaults, which rule-validation.ts checks a rule against.
 */
import type { FaultRuleSpec } from '../model/index.js';

export type Plane = FaultRuleSpec['selector']['plane'];

export interface NumberParam {
  name: string;
  min: number;
  max: number;
  integer: boolean;
  /** Absent: the parameter is required. */
  default?: number;
  /** Lower bound excluded (rates: 0 affects nothing). */
  exclusiveMin?: boolean;
}

const RATE: NumberParam = { name: 'rate', min: 0, max: 1, integer: false, default: 1, exclusiveMin: true };
export const HOUR_MS = 3_600_000;
const ms = (required = true): NumberParam => ({
  name: 'ms',
  min: 0,
  max: HOUR_MS,
  integer: true,
  ...(required ? {} : { default: 0 }),
});
const RAMP: NumberParam = { name: 'ramp_ms', min: 0, max: HOUR_MS, integer: true, default: 0 };

/** Each plane's actions and their numeric parameters (other parameters are checked by hand in rule-validation.ts). */
export const ACTIONS: Record<Plane, Record<string, NumberParam[]>> = {
  udp: {
    drop: [RATE, { name: 'burst', min: 1, max: 100_000, integer: true, default: 1 }],
    duplicate: [RATE],
    reorder: [RATE],
    delay: [RATE, ms()],
    corrupt: [RATE],
    truncate: [RATE, { name: 'bytes', min: 0, max: 65_507, integer: true }],
    pause: [{ ...ms(), min: 1 }],
    stop: [],
    frame_rate: [{ name: 'hz', min: 0, max: 100, integer: false, exclusiveMin: true }],
  },
  http: {
    latency: [ms()],
    status: [
      { name: 'status', min: 500, max: 503, integer: true },
      { name: 'retry_after_s', min: 0, max: 3600, integer: true, default: 1 },
    ],
    close: [],
    truncate: [{ name: 'bytes', min: 0, max: 1 << 30, integer: true }],
  },
  unit: {
    alert: [],
    temperature: [{ name: 'ambient_c', min: -60, max: 150, integer: false }, RAMP],
    voltage: [{ name: 'supply_mv', min: 0, max: 60_000, integer: true }, RAMP],
    link_down: [],
    ptp_grandmaster: [],
    sync_pulse_lock: [],
    phase_lock_lost: [],
    reinit_time: [ms()],
    restart_time: [ms()],
    restart: [],
    firmware_boot_fail: [],
    firmware_upload_refuse: [{ name: 'after_bytes', min: 0, max: Number.MAX_SAFE_INTEGER, integer: true }],
    storage: [],
    object: [],
    window_soil: [
      { name: 'azimuth_from_deg', min: 0, max: 360, integer: false },
      { name: 'azimuth_to_deg', min: 0, max: 360, integer: false },
      { name: 'first_beam', min: 0, max: 127, integer: true, default: 0 },
      { name: 'last_beam', min: 0, max: 127, integer: true, default: 127 },
      { name: 'level', min: 1, max: 255, integer: true, default: 255 },
    ],
  },
};

/** The vectors of an `object` action (sensor frame): a size must be positive, a velocity defaults to still. */
export const OBJECT_VECTORS: { name: string; min: number; max: number; positive?: boolean; default?: number[] }[] = [
  { name: 'size_m', min: 0, max: 100, positive: true },
  { name: 'position_m', min: -1000, max: 1000 },
  { name: 'velocity_m_s', min: -100, max: 100, default: [0, 0, 0] },
];

/** Unit actions that happen once (a count makes no sense) or hold a state (no count either). */
export const COUNTABLE_PLANES: ReadonlySet<Plane> = new Set(['udp', 'http']);

export function actionNames(plane: Plane): string[] {
  return Object.keys(ACTIONS[plane]);
}
