/** One unit of a fleet as the supervisor sees it, whatever runs it (a child process or this process). */
import type { UnitPlan } from './unit-plan.js';

export type UnitState = 'starting' | 'running' | 'restarting' | 'stopped';

export interface FleetUnit {
  readonly plan: UnitPlan;
  readonly state: UnitState;
  /** Times the unit was started again after it died. */
  readonly restarts: number;
  /** Process id of the unit's process (the supervisor's own in the shared model). */
  readonly pid: number | undefined;
  /** Starts the unit; resolves once it answers HTTP. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

export const SENSOR_INFO_PATH = '/api/v1/sensor/metadata/sensor_info';

export function unitUrl(plan: UnitPlan, path = ''): string {
  return `http://${plan.address}:${plan.port}${path}`;
}

/** Polls `url` until it answers 200 (any other answer or a refused connection: not yet), up to `timeoutMs`. */
export async function waitUntilAnswering(
  url: string,
  timeoutMs: number,
  alive: () => boolean = () => true,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!alive()) throw new Error('the unit exited while starting');
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
      await response.arrayBuffer();
      if (response.status === 200) return;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) throw new Error(`no answer from ${url} within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
