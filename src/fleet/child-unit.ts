/**
 * A unit in its own child process (the default process model): a crash, an out-of-memory or a
 * `--hal linux` reboot (exit 75) ends that process only; the supervisor starts it again with a
 * back-off while the other units keep streaming.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Logger } from 'pino';
import { SENSOR_INFO_PATH, unitUrl, waitUntilAnswering, type FleetUnit, type UnitState } from './fleet-unit.js';
import type { UnitPlan } from './unit-plan.js';

/** Exit status of a unit that asks to be started again (the linux HAL's reboot; systemd's RestartForceExitStatus). */
const REBOOT_EXIT_STATUS = 75;
const FIRST_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 30_000;
/** A unit that ran this long before dying starts again at the first back-off. */
const HEALTHY_UPTIME_MS = 30_000;
const STOP_GRACE_MS = 5000;
const READY_TIMEOUT_MS = 60_000;

/** The unit's own options come from the plan: SENSOR_* of the supervisor's environment would make every unit alike. */
function childEnvironment(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('SENSOR_')));
}

export class ChildUnit implements FleetUnit {
  private child: ChildProcess | null = null;
  private currentState: UnitState = 'stopped';
  private restartCount = 0;
  private failuresInARow = 0;
  private stopping = false;
  private restartTimer: NodeJS.Timeout | null = null;

  constructor(
    readonly plan: UnitPlan,
    private readonly log: Logger,
    /** The command that starts one unit: [node, ...execArgv, cli.js]. */
    private readonly command: readonly string[],
  ) {}

  get state(): UnitState {
    return this.currentState;
  }

  get restarts(): number {
    return this.restartCount;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  async start(): Promise<void> {
    this.stopping = false;
    const child = this.spawnChild();
    await waitUntilAnswering(
      unitUrl(this.plan, SENSOR_INFO_PATH),
      READY_TIMEOUT_MS,
      () => child.exitCode === null && child.signalCode === null,
    );
    if (this.child === child) this.currentState = 'running';
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = null;
    const child = this.child;
    this.currentState = 'stopped';
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    await exited;
    clearTimeout(timer);
  }

  private spawnChild(): ChildProcess {
    const [executable, ...prefix] = this.command;
    // Its own process group: Ctrl-C in a terminal reaches the supervisor only, which stops the units itself
    // (a unit that saw the signal first would look like a crash and be restarted).
    const child = spawn(executable, [...prefix, ...this.plan.args], {
      env: childEnvironment(),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    this.child = child;
    this.currentState = 'starting';
    const startedAt = Date.now();
    this.forwardOutput(child);
    child.once('exit', (code, signal) => this.onExit(child, code, signal, Date.now() - startedAt));
    child.once('error', (error) => this.log.error({ err: error }, 'unit process could not be started'));
    return child;
  }

  /** Each line of the unit's JSON log gets its name, so the fleet's one log stays readable. */
  private forwardOutput(child: ChildProcess) {
    const unit = JSON.stringify(this.plan.name);
    for (const [stream, out] of [
      [child.stdout, process.stdout],
      [child.stderr, process.stderr],
    ] as const) {
      if (!stream) continue;
      createInterface({ input: stream }).on('line', (line) => {
        out.write(line.startsWith('{') ? `{"unit":${unit},${line.slice(1)}\n` : `[${this.plan.name}] ${line}\n`);
      });
    }
  }

  private onExit(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null, uptimeMs: number) {
    if (this.child !== child || this.stopping) return;
    this.failuresInARow = uptimeMs >= HEALTHY_UPTIME_MS || code === REBOOT_EXIT_STATUS ? 0 : this.failuresInARow + 1;
    const delayMs =
      code === REBOOT_EXIT_STATUS
        ? 0
        : Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** Math.max(0, this.failuresInARow - 1));
    this.log.warn(
      { unit: this.plan.name, code, signal, restartInMs: delayMs },
      'unit process ended; starting it again',
    );
    this.currentState = 'restarting';
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      if (this.stopping) return;
      this.restartCount++;
      const next = this.spawnChild();
      waitUntilAnswering(
        unitUrl(this.plan, SENSOR_INFO_PATH),
        READY_TIMEOUT_MS,
        () => next.exitCode === null && next.signalCode === null,
      ).then(
        () => {
          if (this.child === next && !this.stopping) this.currentState = 'running';
        },
        () => undefined, // It died again: its own exit handler schedules the next attempt.
      );
    }, delayMs);
  }
}
