/**
 * Watches telemetry and turns threshold crossings into alerts (INPUT_VOLTAGE, OVERTEMP).
 *
 * Every limit has a hysteresis band: an alert is raised when the value crosses the limit and
 * cleared only once it is back by the band's width, so a value sitting on a limit (plus
 * measurement noise) does not flap. The alert log is the state: whether an alert is active is
 * read back from it, so alerts restored from the store after a restart are cleared by the first
 * sample that shows the condition gone.
 *
 * Samples are taken every `intervalMs` in the background and on every read (the telemetry
 * endpoint), so the answer a client gets and the alerts agree.
 */
import { ALERT_IDS, type AlertSink } from '../model/index.js';
import type { TelemetryHal, TelemetryReading } from '../hal/index.js';

/** The values of `phase_lock_status`, for the HTTP layer (which does not reach into the HAL). */
export { PHASE_LOCK_STATUSES } from '../hal/index.js';

type Quantity = 'input_voltage_mv' | 'internal_temperature_deg_c';

export interface ThresholdRule {
  id: string;
  quantity: Quantity;
  /** `below`: alert when the value is under `limit`; `above`: alert when the value is at or over it. */
  direction: 'below' | 'above';
  limit: number;
  /** How far back past the limit the value must come before the alert clears. */
  hysteresis: number;
}

/**
 * Limits for the unit's 24 V input and its internal temperature (typical 45-80 °C running).
 * Voltage alerts carry `voltage_mv`/`threshold_mv`, temperature alerts `temperature_c`/`threshold_c`.
 */
export const TELEMETRY_THRESHOLDS: readonly ThresholdRule[] = [
  {
    id: ALERT_IDS.INPUT_VOLTAGE_LOW_WARNING,
    quantity: 'input_voltage_mv',
    direction: 'below',
    limit: 21_000,
    hysteresis: 300,
  },
  {
    id: ALERT_IDS.INPUT_VOLTAGE_LOW_ERROR,
    quantity: 'input_voltage_mv',
    direction: 'below',
    limit: 19_000,
    hysteresis: 300,
  },
  {
    id: ALERT_IDS.INPUT_VOLTAGE_HIGH_WARNING,
    quantity: 'input_voltage_mv',
    direction: 'above',
    limit: 27_000,
    hysteresis: 300,
  },
  {
    id: ALERT_IDS.INPUT_VOLTAGE_HIGH_ERROR,
    quantity: 'input_voltage_mv',
    direction: 'above',
    limit: 29_000,
    hysteresis: 300,
  },
  {
    id: ALERT_IDS.OVERTEMP_WARNING,
    quantity: 'internal_temperature_deg_c',
    direction: 'above',
    limit: 85,
    hysteresis: 3,
  },
  {
    id: ALERT_IDS.OVERTEMP_ERROR,
    quantity: 'internal_temperature_deg_c',
    direction: 'above',
    limit: 95,
    hysteresis: 3,
  },
];

export interface TelemetryMonitorOptions {
  source: TelemetryHal;
  alerts: AlertSink & { isActive(id: string): boolean };
  /** Background sampling period; 0 disables background sampling. */
  intervalMs?: number;
  rules?: readonly ThresholdRule[];
  /** A failed background read is reported here and sampling continues. */
  onError?: (error: unknown) => void;
  /** Every sample, after its alerts were raised or cleared (the device core follows the temperature). */
  onSample?: (reading: TelemetryReading) => void;
}

export class TelemetryMonitor {
  private readonly source: TelemetryHal;
  private readonly alerts: TelemetryMonitorOptions['alerts'];
  private readonly intervalMs: number;
  private readonly rules: readonly ThresholdRule[];
  private readonly onError: (error: unknown) => void;
  private readonly onSample: (reading: TelemetryReading) => void;
  private timer: NodeJS.Timeout | undefined;
  private stopped = true;
  /** Bumped by start/stop so a sample in flight from an earlier start never schedules another. */
  private generation = 0;

  constructor(options: TelemetryMonitorOptions) {
    this.source = options.source;
    this.alerts = options.alerts;
    this.intervalMs = options.intervalMs ?? 1000;
    this.rules = options.rules ?? TELEMETRY_THRESHOLDS;
    this.onError = options.onError ?? (() => {});
    this.onSample = options.onSample ?? (() => {});
  }

  /** Starts background sampling (a first sample at once). */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    void this.tick(++this.generation);
  }

  stop(): void {
    this.stopped = true;
    this.generation++;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Reads the source now and applies the thresholds to the sample. */
  async read(): Promise<TelemetryReading> {
    const reading = await this.source.read();
    this.evaluate(reading);
    return reading;
  }

  /** Raises and clears the threshold alerts for one sample; quantities the sample lacks change nothing. */
  evaluate(reading: TelemetryReading): void {
    for (const rule of this.rules) {
      const value = reading[rule.quantity];
      if (value === undefined) continue;
      const active = this.alerts.isActive(rule.id);
      const beyond = rule.direction === 'below' ? value < rule.limit : value >= rule.limit;
      const recovered =
        rule.direction === 'below' ? value >= rule.limit + rule.hysteresis : value < rule.limit - rule.hysteresis;
      if (!active && beyond) {
        this.alerts.raise(rule.id, alertVariables(rule, value));
      } else if (active && recovered) {
        this.alerts.clear(rule.id, `${describe(rule.quantity, value)} is back within limits.`);
      }
    }
    this.onSample(reading);
  }

  private async tick(generation: number): Promise<void> {
    try {
      await this.read();
    } catch (error) {
      this.onError(error);
    }
    if (generation !== this.generation || this.intervalMs <= 0) return;
    this.timer = setTimeout(() => void this.tick(generation), this.intervalMs);
    // Sampling alone must not keep the process alive at shutdown.
    this.timer.unref();
  }
}

function alertVariables(rule: ThresholdRule, value: number): Record<string, number> {
  return rule.quantity === 'input_voltage_mv'
    ? { voltage_mv: value, threshold_mv: rule.limit }
    : { temperature_c: value, threshold_c: rule.limit };
}

function describe(quantity: Quantity, value: number): string {
  return quantity === 'input_voltage_mv' ? `Input voltage ${value} mV` : `Internal temperature ${value} °C`;
}
