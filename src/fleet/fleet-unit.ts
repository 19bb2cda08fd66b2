/** One unit of a fleet as the supervisor sees it, whatever runs it (a child process or this process). */
import type { UnitPlan } from './unit-plan.js';

/** `failed`: the unit cannot start (its process ends at start-up, saying why: `problem`); it is tried again. */
export type UnitState = 'starting' | 'running' | 'restarting' | 'failed' | 'stopped';

export interface FleetUnit {
  readonly plan: UnitPlan;
  readonly state: UnitState;
  /** Times the unit was started again after it died. */
  readonly restarts: number;
  /** Process id of the unit's process (the supervisor's own in the shared model). */
  readonly pid: number | undefined;
  /** Why the unit is not running, in its own words (the line it ended with), while it is `failed`. */
  readonly problem: string | undefined;
  /** Starts the unit; resolves once it answers HTTP. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

export const SENSOR_INFO_PATH = '/api/v1/sensor/metadata/sensor_info';

export function unitUrl(plan: UnitPlan, path = ''): string {
  return `http://${plan.address}:${plan.port}${path}`;
}

/** What a unit's sensor_info says of who it is. */
export interface AnsweringUnit {
  prod_sn?: unknown;
}

/**
 * Polls `url` (a unit's sensor_info) until this unit answers it: a 200 whose body `isOurs` (another server
 * on the unit's address and port answers too, and is not the unit), up to `timeoutMs`. A refused connection,
 * any other answer or another server's: not yet.
 */
export async function waitUntilAnswering(
  url: string,
  timeoutMs: number,
  alive: () => boolean = () => true,
  isOurs: (answer: AnsweringUnit) => boolean = () => true,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!alive()) throw new Error('the unit exited while starting');
    const answer = await fetch(url, { signal: AbortSignal.timeout(2000) })
      .then(async (response) =>
        response.status === 200
          ? ((await response.json()) as AnsweringUnit)
          : response.arrayBuffer().then(() => undefined),
      )
      // Not listening yet, not in time, or not JSON: not the unit.
      .catch(() => undefined);
    if (answer && isOurs(answer)) return;
    if (Date.now() > deadline) throw new Error(`no answer from ${url} within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
