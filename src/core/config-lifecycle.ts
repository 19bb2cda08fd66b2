/**
 * The configuration's lifecycle (docs/client-behaviour.md): staged (what POSTs merge into), active (what the
 * unit runs) and persisted (what a power cycle restores), and the changes between them. A change that
 * reaches the hardware is one reinit (docs/architecture.md): validate the would-be active configuration as a
 * whole → commit it (one SQLite transaction when persisting) → the unit run brings it up with a new
 * initialization_id. Every change goes through the unit's one serial queue; a failed step leaves the previous
 * active configuration running and the store unchanged.
 */
import type { Logger } from 'pino';
import {
  type CheckedValues,
  combinationErrors,
  type ConfigState,
  type ConfigStore,
  type ConfigView,
  defaultConfig,
  normalizeInput,
  type SensorConfig,
} from '../config/index.js';
import { ApiError, conflict, invalidConfiguration, LIDAR_PROFILES, type ProductModel } from '../model/index.js';
import { KV_KEYS, type KvStore, type SqliteDatabase } from '../store/index.js';
import type { SerialQueue } from './serial-queue.js';
import type { ChangeFlags, RecordingBinding } from './sensor-types.js';
import type { UnitRun } from './unit-run.js';
import type { UserDataStore } from './user-data.js';

export interface ConfigLifecycleDependencies {
  db: SqliteDatabase;
  configs: ConfigState;
  store: ConfigStore;
  /** Holds the static IPv4 override, which a reset removes. */
  kv: KvStore;
  userData: Pick<UserDataStore, 'clearOnConfigDelete'>;
  queue: SerialQueue;
  run: Pick<UnitRun, 'reinit' | 'initializationId'>;
  product: Pick<ProductModel, 'lidarModes'>;
  log: Logger;
  recording?: RecordingBinding;
  /** A reset is a restart: from the moment it is stored nothing else may change the unit (PowerState.announceRestart). */
  announceRestart: () => void;
  /** Parameters the unit's firmware does not have (udp_dest_zm, udp_port_zm before 3.2): never accepted. */
  absentParameters: () => ReadonlySet<string>;
  /** Values the running firmware does not have, by parameter. */
  absentValues: () => ReadonlyMap<string, readonly unknown[]>;
  /** A configuration as the running firmware reports it: without the parameters it does not have (firmware-offer.ts). */
  shown: (config: Readonly<SensorConfig>) => Readonly<SensorConfig>;
}

export class ConfigLifecycle {
  constructor(private readonly deps: ConfigLifecycleDependencies) {}

  /** The configuration the unit holds, every parameter included (what the run and the power state use). */
  get(view: ConfigView = 'active'): Readonly<SensorConfig> {
    return this.deps.configs.get(view);
  }

  /** The configuration as this unit reports it: without the parameters its firmware does not have. */
  reported(view: ConfigView = 'active'): Readonly<SensorConfig> {
    return this.deps.shown(this.deps.configs.get(view));
  }

  /**
   * The lidar profile a replayed recording adds to what this unit accepts and reports (LEGACY, from
   * firmware 2.x), when the registry does not list it; undefined otherwise.
   */
  get recordedOnlyProfile(): string | undefined {
    const profile = this.deps.recording?.recordedProfile;
    return profile && !(LIDAR_PROFILES as readonly string[]).includes(profile) ? profile : undefined;
  }

  /**
   * The value rules of the parameter registry for `input` on top of the staged configuration (a change) or
   * the active one (one parameter set at once): the values under current names, or an invalid-configuration
   * error naming every failing field. `autoDestination`: what `"@auto"` stands for; undefined refuses it.
   */
  check(input: Record<string, unknown>, base: 'staged' | 'active', autoDestination?: string): CheckedValues {
    const { configs, recording } = this.deps;
    const { values, errors, uncheckedKeys } = normalizeInput(input, configs.get(base), {
      autoDestination,
      recordedProfile: recording?.recordedProfile,
      absent: this.deps.absentParameters(),
      absentValues: this.deps.absentValues(),
    });
    if (errors.length) throw invalidConfiguration(errors, uncheckedKeys);
    return values;
  }

  /**
   * `POST /api/v1/sensor/config` and the legacy set_config_param: merge checked `values` into staged, then,
   * as the flags say, make staged active (reinit) and store active (persist). All or nothing.
   */
  change(values: CheckedValues, flags: ChangeFlags): Promise<void> {
    const { configs, queue } = this.deps;
    return queue.run(async () => {
      const staged: SensorConfig = { ...configs.get('staged'), ...values };
      if (flags.reinit) {
        await this.reinitWith(staged, flags.persist);
      } else if (flags.persist) {
        this.persist(configs.get('active'));
      }
      configs.set('staged', staged);
    });
  }

  /**
   * `PUT /api/v1/sensor/config/<name>`: the checked value becomes active and persisted at once (on top of
   * the active configuration, not of other staged changes), and is staged too.
   */
  setParameter(values: CheckedValues): Promise<void> {
    const { configs, queue } = this.deps;
    return queue.run(async () => {
      await this.reinitWith({ ...configs.get('active'), ...values }, true);
      configs.set('staged', { ...configs.get('staged'), ...values });
    });
  }

  /** Legacy `reinitialize`: staged becomes active, not persisted. */
  reinitialize(): Promise<void> {
    return this.deps.queue.run(() => this.reinitWith(this.deps.configs.get('staged'), false));
  }

  /** Legacy `save_config_params`: store the active configuration. */
  persistActive(): Promise<void> {
    return this.deps.queue.run(() => this.persist(this.deps.configs.get('active')));
  }

  /**
   * `DELETE /api/v1/sensor/config`: defaults, no static IPv4 override, user data removed when its
   * policy says so — one transaction. The restart is announced in the same step, so no change queued behind the
   * reset is applied over the defaults; the restart that follows (after the answer) boots them.
   */
  reset(): Promise<void> {
    const { db, store, kv, userData, configs } = this.deps;
    return this.deps.queue.run(() => {
      const defaults = defaultConfig();
      db.transaction(() => {
        store.save(defaults);
        kv.delete(KV_KEYS.ipv4Override);
        userData.clearOnConfigDelete();
      })();
      configs.set('persisted', defaults);
      this.deps.announceRestart();
    });
  }

  /** What a boot runs: the persisted configuration, on a replaying unit with the recording's parameters. */
  bootConfig(): Readonly<SensorConfig> {
    const persisted = this.deps.configs.get('persisted');
    if (!this.deps.recording) return persisted;
    // Stored too, so staged changes and GET ?persisted start from the recording's values.
    const bound = this.deps.recording.bind(persisted);
    this.persist(bound);
    this.deps.configs.set('staged', bound);
    return bound;
  }

  /** A power-on after a restart: staged and active start again from what a boot runs. */
  powerOn(): Readonly<SensorConfig> {
    const config = this.bootConfig();
    this.deps.configs.set('active', config);
    this.deps.configs.set('staged', config);
    return config;
  }

  private async reinitWith(candidate: SensorConfig, persist: boolean): Promise<void> {
    const { configs, run, log } = this.deps;
    const refusal = this.deps.recording?.refusal(candidate, configs.get('active'));
    if (refusal) throw conflict(refusal);
    const errors = combinationErrors(candidate, { lidarModes: this.deps.product.lidarModes });
    if (errors.length) throw invalidConfiguration(errors);
    const previousPersisted = configs.get('persisted');
    if (persist) this.persist(candidate);
    try {
      await run.reinit(candidate);
      log.info(
        { initialization_id: run.initializationId, lidar_mode: candidate.lidar_mode, persisted: persist },
        'reinitialized',
      );
    } catch (error) {
      if (persist) this.persist(previousPersisted);
      throw error instanceof ApiError
        ? error
        : new ApiError(
            'internal',
            'the sensor could not apply the configuration; the previous configuration stays active',
          );
    }
  }

  private persist(config: Readonly<SensorConfig>): void {
    this.deps.store.save(config);
    this.deps.configs.set('persisted', config);
  }
}
