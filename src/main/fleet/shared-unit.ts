/**
 * A unit inside the supervisor's process (process model `shared`): each unit still has its own
 * database and HTTP server, but they share one V8 heap, one event loop and one data-plane worker
 * thread (src/udp/emitter-host.ts), and an uncaught error ends them all. Chosen for memory and CPU per
 * unit, not for isolation.
 */
import type { Logger } from 'pino';
import { parseCliOptions } from '../cli-options.js';
import { startServer, type RunningServer } from '../server.js';
import type { FleetUnit, UnitState } from './fleet-unit.js';
import type { UnitPlan } from './unit-plan.js';

export class SharedUnit implements FleetUnit {
  private server: RunningServer | null = null;
  private currentState: UnitState = 'stopped';

  constructor(
    readonly plan: UnitPlan,
    private readonly log: Logger,
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

  async start(): Promise<void> {
    const options = parseCliOptions(this.plan.args, {});
    if (options === 'help') throw new Error('unexpected --help in a unit plan');
    this.currentState = 'starting';
    this.server = await startServer(options, this.log.child({ unit: this.plan.name }, { level: options.logLevel }));
    this.currentState = 'running';
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    this.currentState = 'stopped';
    await server?.close();
  }
}
