/**
 * The three configurations of the staged/active/persisted model (docs/client-behaviour.md):
 * staged (what POSTs merge into), active (what the hardware runs) and persisted (what a power
 * cycle restores). This class only holds them; the device core decides when one becomes another.
 */
import type { SensorConfig } from '../model/index.js';

export type ConfigView = 'staged' | 'active' | 'persisted';

export class ConfigState {
  private readonly views = {} as Record<ConfigView, SensorConfig>;

  constructor(persisted: SensorConfig) {
    for (const view of ['staged', 'active', 'persisted'] as const) this.set(view, persisted);
  }

  /** A read-only view. Callers must not mutate it; the state replaces whole objects on change. */
  get(view: ConfigView): Readonly<SensorConfig> {
    return this.views[view];
  }

  set(view: ConfigView, config: SensorConfig): void {
    // Frozen copies: a caller holding a view can never change what the unit runs.
    this.views[view] = Object.freeze(structuredClone(config)) as SensorConfig;
  }
}
