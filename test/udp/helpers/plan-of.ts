/** A stream plan as the device core builds it (src/udp/main-thread/plan-streams.ts), from a configuration's changes. */
import { defaultConfig } from '../../../src/config/registry.js';
import type { SensorConfig } from '../../../src/model/index.js';
import { findProduct } from '../../../src/model/products.js';
import { type PlanIdentity, planStreams, type StreamPlan } from '../../../src/udp/index.js';

/** `changes` over the default configuration sending to 127.0.0.1; the plan must send something. */
export function planOf(changes: Partial<SensorConfig>, run: Partial<PlanIdentity> & { initId: number }): StreamPlan {
  const config: SensorConfig = { ...defaultConfig(), udp_dest: '127.0.0.1', ...changes };
  const plan = planStreams(config, {
    product: findProduct('OS-1-32')!,
    serialNumber: 1n,
    bindAddress: undefined,
    timestampOffsetNs: 0n,
    ...run,
  });
  if (!plan) throw new Error('the configuration streams nothing (operating_mode)');
  return plan;
}
