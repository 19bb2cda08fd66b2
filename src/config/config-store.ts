/**
 * The persisted configuration: what a power cycle restores. One JSON document in one row, so a
 * save is atomic; loading fills parameters a newer version added with their defaults.
 */
import { type SqliteDatabase, type StorageGate, storageGateOf } from '../store/index.js';
import { valueErrors } from './config-validation.js';
import type { SensorConfig } from '../model/index.js';
import { PARAMETERS, defaultConfig } from './registry.js';

export class ConfigStore {
  private readonly selectStmt;
  private readonly upsertStmt;
  private readonly gate: StorageGate;

  constructor(db: SqliteDatabase) {
    this.gate = storageGateOf(db);
    this.selectStmt = db.prepare<[], { config: string }>('SELECT config FROM persisted_config WHERE id = 1');
    this.upsertStmt = db.prepare<[string]>(
      'INSERT INTO persisted_config (id, config) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET config = excluded.config',
    );
  }

  /**
   * The stored configuration merged over the defaults (known keys only), or the defaults when none is stored.
   * A stored value the registry refuses keeps its default: a replay of a LEGACY recording stores that profile,
   * and the same data directory started without the replay must not take it (its binding sets it each boot).
   */
  load(): SensorConfig {
    const config = defaultConfig();
    const row = this.selectStmt.get();
    if (!row) return config;
    const stored = JSON.parse(row.config) as Record<string, unknown>;
    const target = config as unknown as Record<string, unknown>;
    for (const p of PARAMETERS)
      if (p.name in stored && !p.readOnly && valueErrors(p.name, stored[p.name]).length === 0)
        target[p.name] = stored[p.name];
    return config;
  }

  save(config: SensorConfig): void {
    this.gate.check('adds');
    this.upsertStmt.run(JSON.stringify(config));
  }
}
