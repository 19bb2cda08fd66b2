/**
 * The three configurations of the staged/active/persisted model (client-contract.md):
 * staged (what POSTs merge into), active (what the hardware runs) and persisted (what a power
 * cycle restores). This class only holds them; the device core decides when one becomes another.
 */
import type { SensorConfig } from './registry.js';

export type ConfigView = 'staged' | 'active' | 'persisted';

export class ConfigState {
  private views: Record<ConfigView, SensorConfig>;

  constructor(persisted: SensorConfig) {
    this.views = { staged: structuredClone(persisted), active: structuredClone(persisted), persisted: structuredClone(persisted) };
  }

  /** A read-only view. Callers must not mutate it; the state replaces whole objects on change. */
  get(view: ConfigView): Readonly<SensorConfig> {
    return this.views[view];
  }

  set(view: ConfigView, config: SensorConfig): void {
    this.views[view] = Object.freeze(structuredClone(config)) as SensorConfig;
  }
}
