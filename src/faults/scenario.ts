/**
 * Scenario files (`--faults FILE`): fault rules on a timeline from the start of the unit.
 *
 *   steps:
 *     - at_ms: 10000
 *       selector: { plane: udp, stream: lidar }
 *       action: { type: drop, rate: 0.05 }
 *       lifetime: { duration_ms: 20000 }
 *
 * YAML or JSON (JSON is YAML); a bare list of steps is accepted too. Every step is checked before
 * the unit starts, and every mistake is reported with the step it is in.
 */
import { parse } from 'yaml';
import type { FaultRuleSpec, FieldError } from '../model/index.js';
import { validateFaultRule } from './rule-validation.js';

export interface ScenarioStep {
  atMs: number;
  rule: FaultRuleSpec;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function parseScenario(text: string): { steps: ScenarioStep[]; errors: FieldError[] } {
  let document: unknown;
  try {
    document = parse(text);
  } catch (error) {
    return { steps: [], errors: [{ pointer: '', detail: `not valid YAML or JSON: ${(error as Error).message}` }] };
  }
  const list = Array.isArray(document) ? document : isObject(document) ? document.steps : undefined;
  if (!Array.isArray(list))
    return {
      steps: [],
      errors: [{ pointer: '', detail: 'must hold a list of steps (a list, or an object with "steps")' }],
    };
  const steps: ScenarioStep[] = [];
  const errors: FieldError[] = [];
  list.forEach((raw: unknown, index) => {
    const at = `/steps/${index}`;
    if (!isObject(raw)) {
      errors.push({
        pointer: at,
        detail: 'must be an object with "at_ms", "selector", "action" and optionally "lifetime"',
      });
      return;
    }
    const { at_ms: atMs = 0, ...ruleInput } = raw;
    if (typeof atMs !== 'number' || !Number.isInteger(atMs) || atMs < 0) {
      errors.push({
        pointer: `${at}/at_ms`,
        detail: `must be an integer >= 0 (milliseconds from start); got ${JSON.stringify(atMs)}`,
      });
    }
    const result = validateFaultRule(ruleInput);
    for (const e of result.errors) errors.push({ pointer: `${at}${e.pointer}`, detail: e.detail });
    if (result.rule && typeof atMs === 'number') steps.push({ atMs, rule: result.rule });
  });
  return { steps, errors };
}
