/**
 * Runs a scenario's timeline: each step's rule is added to the fault plane at its time after start.
 */
import type { Logger } from 'pino';
import type { ScenarioStep } from './scenario.js';

export interface RuleSink {
  add(rule: unknown): unknown;
}

/** Starts the timeline; the returned function cancels the steps still to come. */
export function scheduleScenario(plane: RuleSink, steps: readonly ScenarioStep[], log: Logger): () => void {
  const timers = steps.map((step) => {
    const timer = setTimeout(() => {
      try {
        plane.add(step.rule);
      } catch (error) {
        // The steps were checked at start; what can still fail is the unit refusing one (a 409).
        log.error({ err: error, step }, 'scenario step could not be applied');
      }
    }, step.atMs);
    timer.unref();
    return timer;
  });
  return () => {
    for (const timer of timers) clearTimeout(timer);
  };
}
