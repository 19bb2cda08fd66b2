/**
 * The last minutes of telemetry for the web page's plot, so a page opened now shows history at once.
 * Sampled every few seconds from the telemetry monitor (which also applies the alert thresholds).
 */
import type { TelemetryReading } from '../../hal/index.js';

export const HISTORY_INTERVAL_MS = 5000;
export const HISTORY_SAMPLES = 120;

export interface TelemetrySample {
  /** Wall-clock time of the sample, ms since the epoch. */
  at: number;
  input_voltage_mv?: number;
  input_current_ma?: number;
  internal_temperature_deg_c?: number;
}

export class TelemetryHistory {
  private readonly samples: TelemetrySample[] = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly read: () => Promise<TelemetryReading>) {}

  start(): void {
    if (this.timer) return;
    const sample = () =>
      this.read().then(
        (r) =>
          this.add({
            at: Date.now(),
            input_voltage_mv: r.input_voltage_mv,
            input_current_ma: r.input_current_ma,
            internal_temperature_deg_c: r.internal_temperature_deg_c,
          }),
        () => undefined,
      );
    void sample();
    this.timer = setInterval(() => void sample(), HISTORY_INTERVAL_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  list(): TelemetrySample[] {
    return [...this.samples];
  }

  private add(sample: TelemetrySample) {
    this.samples.push(sample);
    if (this.samples.length > HISTORY_SAMPLES) this.samples.shift();
  }
}
