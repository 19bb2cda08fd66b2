/**
 * The unit's power state: restart and reboot (the unit unreachable for a reboot time, then a boot through the
 * firmware slots), the shutdown a shutdown-level alert forces and the recovery once it clears, and the thermal
 * bytes of the packet header that follow the temperature. Every step runs on the unit's one serial queue.
 */
import type { EventEmitter } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { AlertLog } from '../alerts/index.js';
import type { SensorConfig } from '../config/index.js';
import type { Hal, RebootReason } from '../hal/index.js';
import { unavailable } from '../model/index.js';
import { crashPoint } from '../store/index.js';
import type { FirmwareManager } from './firmware/firmware-manager.js';
import type { SerialQueue } from './serial-queue.js';
import type { SensorEvents } from './sensor-types.js';
import {
  NORMAL_HEADER,
  packThermalHeader,
  shutdownCause,
  TemperatureTrend,
  type ThermalHeader,
  thermalHeader,
} from './shutdown-guard.js';
import type { UnitRun } from './unit-run.js';

export interface PowerStateDependencies {
  hal: Pick<Hal, 'streams' | 'telemetry' | 'power'>;
  alerts: Pick<AlertLog, 'isActive'>;
  firmware: Pick<FirmwareManager, 'boot' | 'confirmHealthy'>;
  run: Pick<UnitRun, 'status' | 'setStatus' | 'renew' | 'bringUp'>;
  queue: SerialQueue;
  /** Where `restart` is told, before the unit goes down. */
  events: Pick<EventEmitter<SensorEvents>, 'emit'>;
  log: Logger;
  /** How long a simulated reboot keeps the unit unreachable (the unit's setting). */
  rebootMs: number;
  /** The configuration a power-on boots (config-lifecycle.ts `powerOn`). */
  powerOn: () => Readonly<SensorConfig>;
  /** The configuration a recovery from a shutdown brings back up. */
  activeConfig: () => Readonly<SensorConfig>;
}

/** What a unit shows from the moment a restart is announced: a firmware update's reboot is UPDATING. */
const restartStatus = (reason: RebootReason) => (reason === 'firmware-update' ? 'UPDATING' : 'INITIALIZING');

export class PowerState {
  private rebootMs: number;
  private rebootingUntil = 0;
  private shutdownBy: string | undefined;
  private thermal: ThermalHeader = { ...NORMAL_HEADER };
  private readonly temperatureTrend = new TemperatureTrend();

  constructor(private readonly deps: PowerStateDependencies) {
    this.rebootMs = deps.rebootMs;
  }

  /** True while a (simulated) reboot is under way: the unit is unreachable, HTTP answers 503. */
  get rebooting(): boolean {
    return this.rebootingUntil > 0;
  }

  /** How long a simulated reboot keeps the unit unreachable now. */
  get simulatedRebootMs(): number {
    return this.rebootMs;
  }

  /** Fault injection's reboot time; undefined: the unit's own again. */
  setRebootMs(ms: number | undefined): void {
    this.rebootMs = ms ?? this.deps.rebootMs;
  }

  /** The shutdown alert that holds the unit in ERROR (shutdown-guard.ts), or undefined. */
  get shutdownAlert(): string | undefined {
    return this.shutdownBy;
  }

  /** Bytes 16-19 of the lidar packet header as the unit stamps them now. */
  get thermalHeader(): Readonly<ThermalHeader> {
    return this.thermal;
  }

  /** False while the unit is rebooting (an unreachable real unit). */
  reachable(): boolean {
    return !this.rebooting;
  }

  /** Throws 503 while the unit is rebooting (an unreachable real unit), for the HTTP layer. */
  assertReachable(): void {
    if (this.rebooting) throw this.restarting();
  }

  /**
   * The moment a restart is acknowledged (a DELETE of the configuration, a restart, a firmware update's
   * reboot): from now the unit answers 503 with Retry-After, and a change queued behind the acknowledgement is
   * refused so when its turn comes, until the unit is back. `restart` follows once the answer is written.
   */
  announceRestart(reason: RebootReason = 'restart'): void {
    if (this.deps.queue.fenced) return;
    this.rebootingUntil = Date.now() + this.rebootMs;
    this.deps.run.setStatus(restartStatus(reason));
    this.deps.queue.fence(() => this.restarting());
  }

  private restarting() {
    const seconds = Math.max(1, Math.ceil((this.rebootingUntil - Date.now()) / 1000));
    return unavailable('the sensor is restarting', seconds);
  }

  /** A telemetry sample: the thermal bytes follow the temperature, and the unit its shutdown alerts. */
  followSample(temperatureC: number | undefined): void {
    this.followTemperature(temperatureC);
    this.followShutdownAlerts();
  }

  /** The header's thermal bytes follow the temperature's level and trend. */
  private followTemperature(temperatureC: number | undefined): void {
    if (temperatureC === undefined) return;
    const rate = this.temperatureTrend.sample(temperatureC, Date.now());
    const header = thermalHeader(temperatureC, rate);
    if (JSON.stringify(header) === JSON.stringify(this.thermal)) return;
    this.thermal = header;
    this.deps.hal.streams.setThermalHeader?.(packThermalHeader(header));
  }

  /**
   * At a shutdown level the unit stops measuring (ERROR, no packets); once every shutdown alert has cleared
   * it comes back by itself, reinitializing its active configuration with a new initialization_id.
   */
  followShutdownAlerts(): void {
    const { alerts, log, queue } = this.deps;
    const cause = shutdownCause((id) => alerts.isActive(id));
    if (cause === this.shutdownBy) return;
    const was = this.shutdownBy;
    this.shutdownBy = cause;
    if (cause && !was) {
      log.error({ alert: cause }, 'shutdown level reached: the unit stops measuring (ERROR)');
      void queue.runPastFence(() => this.shutDown()).catch((err: unknown) => log.error({ err }, 'shutdown failed'));
    } else if (!cause && was) {
      log.info({ alert: was }, 'back within limits: the unit starts measuring again');
      void queue.runPastFence(() => this.recover()).catch((err: unknown) => log.error({ err }, 'recovery failed'));
    }
  }

  /**
   * Restarts the unit: streams stop, the unit is unreachable for a moment (sim), then it boots
   * the persisted configuration with a new initialization_id. Call after the response is sent (announceRestart
   * when it is decided).
   * After a firmware upload (reason 'firmware-update') the boot runs the new image on trial.
   * On a HAL whose reboot ends the process (linux) the service manager does the booting.
   */
  restart(reason: RebootReason = 'restart'): Promise<void> {
    const { hal, run, log, queue } = this.deps;
    this.announceRestart(reason);
    // Behind whatever the unit was doing when the restart was acknowledged: that finishes and is answered first.
    return queue.runPastFence(async () => {
      try {
        this.rebootingUntil = Date.now() + this.rebootMs;
        // Again: a change the unit was still applying when the restart was announced ended in RUNNING.
        run.setStatus(restartStatus(reason));
        log.info({ reason }, 'restarting the unit');
        // The answers decided so far (a change refused at the fence) are written before the connections close.
        await new Promise(setImmediate);
        this.deps.events.emit('restart');
        await hal.streams.apply(null);
        // Powered down while rebooting: no motor, no lasers, so the power model draws nothing from the run.
        hal.telemetry.applyRun(null);
        crashPoint('reboot-before-boot');
        if (hal.power.rebootMode === 'process-exit') return hal.power.reboot(reason);
        await delay(Math.max(0, this.rebootingUntil - Date.now()));
        const config = this.deps.powerOn();
        run.renew();
        await this.boot(config);
      } finally {
        this.rebootingUntil = 0;
        // Changes queued while the unit booted are applied now, on the unit that is back.
        queue.lift();
      }
    });
  }

  /**
   * One boot: the firmware slot state picks the image (the first boot of a new one shows UPDATING;
   * a failing one resets the unit until it is rolled back), the configuration comes up, and a new
   * image that got this far is committed. The unit is reachable from the moment its image starts.
   * Runs on the queue (the caller's turn).
   */
  async boot(config: Readonly<SensorConfig>): Promise<void> {
    const { firmware, run, log } = this.deps;
    await firmware.boot({
      starting: (kind) => {
        this.rebootingUntil = 0;
        run.setStatus(kind === 'trial' ? 'UPDATING' : 'INITIALIZING');
      },
      failedAttempt: async () => {
        // A watchdog reset: unreachable again for a reboot time.
        this.rebootingUntil = Date.now() + this.rebootMs;
        run.setStatus('INITIALIZING');
        await delay(this.rebootMs);
      },
    });
    await run.bringUp(config);
    await firmware
      .confirmHealthy()
      .catch((error: unknown) =>
        log.error({ err: error }, 'committing the new firmware image failed; it stays on trial'),
      );
  }

  private async shutDown(): Promise<void> {
    if (!this.shutdownBy || this.rebooting) return;
    await this.deps.hal.streams.apply(null);
    // Motor and lasers off: the power model draws what an idle unit draws.
    this.deps.hal.telemetry.applyRun(null);
    this.deps.run.setStatus('ERROR');
  }

  private async recover(): Promise<void> {
    if (this.shutdownBy || this.deps.run.status !== 'ERROR') return;
    this.deps.run.renew();
    await this.deps.run.bringUp(this.deps.activeConfig());
  }
}
