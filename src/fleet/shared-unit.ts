/**
 * A unit inside the supervisor's process (process model `shared`): each unit still has its own
 * database and HTTP server, but they share one V8 heap, one event loop and one data-plane worker
 * thread (src/udp/main-thread/emitter-host.ts), and an uncaught error ends them all. Chosen for memory and CPU per
 * unit, not for isolation.
 */
import type { Logger } from 'pino';
import type { FleetUnit, UnitState } from './fleet-unit.js';
import type { UnitPlan } from './unit-plan.js';

/**
 * Starts one unit in this process from its command-line arguments, as the `lidar-sensor` command would,
 * logging through `log`. Given by the entry point (src/main), which owns the options and the server.
 */
export type StartUnit = (args: readonly string[], log: Logger) => Promise<{ close(): Promise<void> }>;

export class SharedUnit implements FleetUnit {
  private server: { close(): Promise<void> } | null = null;
  private currentState: UnitState = 'stopped';
  private failure: string | undefined;

  constructor(
    readonly plan: UnitPlan,
    private readonly log: Logger,
    private readonly startUnit: StartUnit,
  ) {}

  get state(): UnitState {
    return this.currentState;
  }

  get restarts(): number {
    return 0;
  }

  get pid(): number {
    return process.pid;
  }

  get problem(): string | undefined {
    return this.currentState === 'failed' ? this.failure : undefined;
  }

  /** Resolves once the unit listens (in this process: it is this unit that answers); `failed` when it cannot. */
  async start(): Promise<void> {
    this.currentState = 'starting';
    try {
      this.server = await this.startUnit(this.plan.args, this.log.child({ unit: this.plan.name }));
    } catch (error) {
      this.currentState = 'failed';
      this.failure = (error as Error).message;
      throw error;
    }
    this.currentState = 'running';
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    this.currentState = 'stopped';
    await server?.close();
  }
}
