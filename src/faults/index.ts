/**
 * Fault injection for one unit, from the command-line options: the fault plane, the control
 * listener (`--control`), the scenario timeline (`--faults`) and the durations (`--realistic-timing`).
 * Nothing of it exists unless one of those options is given.
 */
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { buildControlApp } from './control-server.js';
import { FaultPlane } from './fault-plane.js';
import { parseScenario, type ScenarioStep } from './scenario.js';
import { scheduleScenario } from './scheduler.js';
import { REALISTIC_TIMING, type UnitTiming } from './unit-faults.js';
import type { FaultTarget } from './fault-target.js';

export { REALISTIC_FIRMWARE_UPDATE_MS } from './unit-faults.js';
export { runFaultsCli } from './faults-cli.js';

export interface FaultInjectionOptions {
  /** Where the control listener listens (`--control`), if anywhere. */
  control: { host: string; port: number } | undefined;
  realisticTiming: boolean;
  /** The `--faults` scenario, loaded and checked (loadScenario). */
  scenario: ScenarioStep[];
}

export interface FaultInjection {
  plane: FaultPlane;
  /** e.g. http://127.0.0.1:8081, when the control listener runs. */
  controlUrl: string | undefined;
  close(): Promise<void>;
}

/** The default: reinit as fast as the host allows, restart as the unit is set up (1 s). */
export const FAST_TIMING: Readonly<UnitTiming> = { reinitMs: 0 };

/** Reads and checks the scenario file; an error message naming every mistake, or the steps. */
export function loadScenario(file: string): ScenarioStep[] | string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    return `cannot read --faults ${file}: ${(error as Error).message}`;
  }
  const { steps, errors } = parseScenario(text);
  if (errors.length)
    return `--faults ${file}: ${errors.map((e) => `${e.pointer || '(file)'}: ${e.detail}`).join('; ')}`;
  return steps;
}

export async function startFaultInjection(
  target: FaultTarget,
  options: FaultInjectionOptions,
  log: Logger,
): Promise<FaultInjection> {
  const scenario = options.scenario;
  const plane = new FaultPlane(target, {
    log: log.child({ component: 'faults' }),
    timing: options.realisticTiming ? REALISTIC_TIMING : FAST_TIMING,
  });
  const cancelScenario = scheduleScenario(plane, scenario, log);
  let control: FastifyInstance | undefined;
  let controlUrl: string | undefined;
  if (options.control) {
    control = await buildControlApp(plane);
    try {
      controlUrl = await control.listen({ host: options.control.host, port: options.control.port });
    } catch (error) {
      cancelScenario();
      plane.close();
      throw error;
    }
    log.info({ url: controlUrl }, 'fault-injection control listening');
  }
  return {
    plane,
    controlUrl,
    async close() {
      cancelScenario();
      await control?.close();
      plane.close();
    },
  };
}
