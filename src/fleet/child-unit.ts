/**
 * A unit in its own child process (the default process model): a crash, an out-of-memory or a
 * `--hal linux` reboot (exit 75) ends that process only; the supervisor starts it again with a
 * back-off while the other units keep streaming. A unit is up only when the answer comes from this
 * child (its serial, and its pid in the data directory it locked), never from another server on its
 * address; a unit that cannot start (exit 2: a start-up failure it names, such as its port taken) is
 * `failed` with its own reason, and tried again with the same back-off.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Logger } from 'pino';
import { PID_FILE, readFactoryFile } from '../store/index.js';
import {
  type AnsweringUnit,
  SENSOR_INFO_PATH,
  unitUrl,
  waitUntilAnswering,
  type FleetUnit,
  type UnitState,
} from './fleet-unit.js';
import type { UnitPlan } from './unit-plan.js';

/** Exit status of a unit that asks to be started again (the linux HAL's reboot; systemd's RestartForceExitStatus). */
const REBOOT_EXIT_STATUS = 75;
/** Exit status of a start-up failure the unit names on its last line (src/main/startup-failure.ts). */
const STARTUP_FAILURE_STATUS = 2;
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
  /** The last line the current child wrote to its standard error (a start-up failure is one line). */
  private lastErrorLine: string | undefined;
  private failure: string | undefined;
  /** Per child: settled once it ended and all its output was read. */
  private readonly closed = new WeakMap<ChildProcess, Promise<void>>();

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

  get problem(): string | undefined {
    return this.currentState === 'failed' ? this.failure : undefined;
  }

  async start(): Promise<void> {
    this.stopping = false;
    const child = this.spawnChild();
    try {
      await this.untilAnswering(child);
    } catch (error) {
      // It ended: once its output is read, its exit handler has the reason and schedules the next attempt.
      if (child.exitCode !== null || child.signalCode !== null) await this.closed.get(child);
      throw new Error(this.problem ?? (error as Error).message);
    }
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

  /** Resolves once `child` answers on the unit's address; it is then `running`. */
  private async untilAnswering(child: ChildProcess): Promise<void> {
    await waitUntilAnswering(
      unitUrl(this.plan, SENSOR_INFO_PATH),
      READY_TIMEOUT_MS,
      () => child.exitCode === null && child.signalCode === null,
      (answer) => this.answeredBy(child, answer),
    );
    if (this.child === child && !this.stopping) {
      this.currentState = 'running';
      this.failure = undefined;
    }
  }

  /**
   * Whether `answer` is `child`'s: the serial the unit has (its plan's, else the one its data directory's
   * factory data holds) and the data directory locked by this process, not by another.
   */
  private answeredBy(child: ChildProcess, answer: AnsweringUnit): boolean {
    const factory = readFactoryFile(this.plan.dataDir);
    const serial = this.plan.serial ?? (factory.state === 'ok' ? factory.data.serialNumber : undefined);
    if (serial === undefined || answer.prod_sn !== serial) return false;
    try {
      return Number(readFileSync(join(this.plan.dataDir, PID_FILE), 'utf8').trim()) === child.pid;
    } catch {
      // No pid file yet: the child has not locked its data directory, so the answer is not its own.
      return false;
    }
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
    this.lastErrorLine = undefined;
    if (this.currentState !== 'failed') this.currentState = 'starting';
    const startedAt = Date.now();
    this.forwardOutput(child);
    // `close`, not `exit`: the last line of its output (a start-up failure's reason) may come after its exit.
    this.closed.set(
      child,
      new Promise((resolve) =>
        child.once('close', (code, signal) => {
          this.onExit(child, code, signal, Date.now() - startedAt);
          resolve();
        }),
      ),
    );
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
        if (stream === child.stderr && this.child === child && line.trim()) this.lastErrorLine = line;
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
    if (code === STARTUP_FAILURE_STATUS) {
      // The unit's one line, without the program name it starts with.
      const problem = (this.lastErrorLine ?? `exited with status ${code} at start-up`).replace(/^lidar-sensor: /, '');
      // One line per reason, not one per attempt.
      if (problem !== this.failure || this.currentState !== 'failed')
        this.log.error(
          { unit: this.plan.name, code, problem, retryInMs: delayMs },
          `unit ${this.plan.name} cannot start: ${problem}; trying again with a back-off (up to ${MAX_BACKOFF_MS / 1000} s)`,
        );
      this.failure = problem;
      this.currentState = 'failed';
    } else {
      // "Starting it again" is said when it is: a fleet stopped with its units (one signal to them all)
      // sees them end before it stops them, and starts none again.
      this.log.warn(
        { unit: this.plan.name, code, signal, restartInMs: delayMs },
        `unit ${this.plan.name} process ended (${signal ?? `status ${code}`})`,
      );
      this.currentState = 'restarting';
    }
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      if (this.stopping) return;
      if (this.currentState === 'restarting')
        this.log.info({ unit: this.plan.name }, `starting unit ${this.plan.name} again`);
      this.restartCount++;
      const next = this.spawnChild();
      // Died again: its own exit handler schedules the next attempt.
      this.untilAnswering(next).catch(() => undefined);
    }, delayMs);
  }
}
