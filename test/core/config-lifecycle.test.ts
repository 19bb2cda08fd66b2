/**
 * The configuration lifecycle (src/core/config-lifecycle.ts): staged, active and persisted, and the changes
 * between them, against a real database and a fake run.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigState, ConfigStore, defaultConfig, type SensorConfig } from '../../src/config/index.js';
import { ConfigLifecycle } from '../../src/core/config-lifecycle.js';
import type { RecordingBinding } from '../../src/core/sensor-types.js';
import { SerialQueue } from '../../src/core/serial-queue.js';
import { ApiError, findProduct, unavailable } from '../../src/model/index.js';
import { KV_KEYS, KvStore, openDatabase, type SqliteDatabase } from '../../src/store/index.js';
import { silentLog } from './part-fakes.js';

let db: SqliteDatabase | undefined;
afterEach(() => db?.close());

function setUp(options: { failReinit?: boolean; recording?: RecordingBinding } = {}) {
  db = openDatabase(mkdtempSync(join(tmpdir(), 'sensor-lifecycle-')));
  const store = new ConfigStore(db);
  const configs = new ConfigState(store.load());
  const kv = new KvStore(db);
  const userData = { cleared: 0, clearOnConfigDelete: () => userData.cleared++ };
  const ran: SensorConfig[] = [];
  const run = {
    initializationId: 7,
    async reinit(candidate: Readonly<SensorConfig>) {
      if (options.failReinit) throw new Error('the HAL refused the run');
      ran.push(candidate);
      configs.set('active', candidate);
    },
  };
  const queue = new SerialQueue();
  const lifecycle = new ConfigLifecycle({
    db,
    configs,
    store,
    kv,
    userData,
    queue,
    announceRestart: () => queue.fence(() => unavailable('the sensor is restarting')),
    run,
    product: findProduct('OS-1-128')!,
    log: silentLog,
    recording: options.recording,
    absentParameters: () => new Set<string>(),
    shown: (config) => config,
    absentValues: () => new Map(),
  });
  // What a power cycle would read back.
  const stored = () => new ConfigStore(db!).load();
  return { lifecycle, ran, kv, userData, stored, queue };
}

describe('ConfigLifecycle', () => {
  it('a change merges into staged; reinit makes it active, persist stores it', async () => {
    const { lifecycle, ran, stored } = setUp();
    await lifecycle.change(lifecycle.check({ lidar_mode: '2048x10' }, 'staged'), { reinit: false, persist: false });
    expect(lifecycle.get('staged').lidar_mode).toBe('2048x10');
    expect(lifecycle.get('active').lidar_mode).toBe('1024x10');
    expect(ran).toEqual([]);
    await lifecycle.change(lifecycle.check({ operating_mode: 'STANDBY' }, 'staged'), { reinit: true, persist: false });
    expect(lifecycle.get('active')).toMatchObject({ lidar_mode: '2048x10', operating_mode: 'STANDBY' });
    expect(stored().lidar_mode).toBe('1024x10');
    await lifecycle.persistActive();
    expect(stored()).toMatchObject({ lidar_mode: '2048x10', operating_mode: 'STANDBY' });
  });

  it('a bad value is refused by the value rules, naming the parameter, and changes nothing', () => {
    const { lifecycle, ran, stored } = setUp();
    const error = (() => {
      try {
        lifecycle.check({ lidar_mode: 'fast' }, 'staged');
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(400);
    expect((error as ApiError).errors?.map((e) => e.pointer)).toEqual(['/lidar_mode']);
    expect(ran).toEqual([]);
    expect(lifecycle.get('staged')).toEqual(defaultConfig());
    expect(stored()).toEqual(defaultConfig());
  });

  it('the value rules take "@auto" only where the caller is known', () => {
    const { lifecycle } = setUp();
    expect(lifecycle.check({ udp_dest: '@auto' }, 'staged', '192.0.2.7')).toEqual({ udp_dest: '192.0.2.7' });
    expect(() => lifecycle.check({ udp_dest: '@auto' }, 'active')).toThrow(/"@auto" is accepted only/);
    expect(() => lifecycle.check({ columns_per_packet: 8 }, 'staged')).toThrow(/columns_per_packet/);
  });

  it('a reinit the run cannot bring up leaves the store and staged as they were (500 saying so)', async () => {
    const { lifecycle, stored } = setUp({ failReinit: true });
    const error = await lifecycle
      .change(lifecycle.check({ lidar_mode: '2048x10' }, 'staged'), { reinit: true, persist: true })
      .catch((e) => e);
    expect((error as ApiError).type).toBe('internal');
    expect((error as ApiError).detail).toContain('previous configuration stays active');
    expect(stored().lidar_mode).toBe('1024x10');
    expect(lifecycle.get('staged').lidar_mode).toBe('1024x10');
  });

  it('PUT of one parameter goes on top of active, not of other staged changes, and is stored', async () => {
    const { lifecycle, ran, stored } = setUp();
    await lifecycle.change(lifecycle.check({ operating_mode: 'STANDBY' }, 'staged'), { reinit: false, persist: false });
    await lifecycle.setParameter(lifecycle.check({ lidar_mode: '512x10' }, 'active'));
    expect(ran.at(-1)).toMatchObject({ lidar_mode: '512x10', operating_mode: 'NORMAL' });
    expect(stored().lidar_mode).toBe('512x10');
    expect(lifecycle.get('staged')).toMatchObject({ lidar_mode: '512x10', operating_mode: 'STANDBY' });
  });

  it('a reset stores the defaults, drops the IPv4 override and asks user data to clear, in one go', async () => {
    const { lifecycle, kv, userData, stored } = setUp();
    await lifecycle.setParameter(lifecycle.check({ lidar_mode: '2048x10' }, 'active'));
    kv.set(KV_KEYS.ipv4Override, '10.0.0.2/24');
    await lifecycle.reset();
    expect(stored()).toEqual(defaultConfig());
    expect(lifecycle.get('persisted')).toEqual(defaultConfig());
    expect(kv.get(KV_KEYS.ipv4Override)).toBeUndefined();
    expect(userData.cleared).toBe(1);
    // Active keeps running until the restart that follows boots the defaults.
    expect(lifecycle.get('active').lidar_mode).toBe('2048x10');
    expect(lifecycle.powerOn()).toEqual(defaultConfig());
    expect(lifecycle.get('active')).toEqual(defaultConfig());
  });

  it('a reset fences the queue: a change queued behind it is refused (503) and the stored defaults hold', async () => {
    const { lifecycle, ran, stored, queue } = setUp();
    const reset = lifecycle.reset();
    const behind = lifecycle.change(lifecycle.check({ udp_port_imu: 9002 }, 'staged'), { reinit: true, persist: true });
    await reset;
    const refusal = await behind.then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(ApiError);
    expect((refusal as ApiError).status).toBe(503);
    expect((refusal as ApiError).headers?.['Retry-After']).toBe('1');
    expect(ran).toEqual([]);
    expect(stored()).toEqual(defaultConfig());
    expect(lifecycle.get('staged')).toEqual(defaultConfig());
    // Once the restart has lifted the fence, changes are applied again.
    queue.lift();
    await lifecycle.change(lifecycle.check({ udp_port_imu: 9002 }, 'staged'), { reinit: true, persist: true });
    expect(stored().udp_port_imu).toBe(9002);
  });

  it("a replaying unit boots the recording's values, stores them, and refuses what the recording cannot do (409)", async () => {
    const recording: RecordingBinding = {
      initializationId: 1,
      recordedProfile: 'LEGACY',
      bind: (config) => ({ ...config, lidar_mode: '2048x10' }),
      refusal: (candidate) => (candidate.lidar_mode !== '2048x10' ? 'the recording fixes lidar_mode' : undefined),
    };
    const { lifecycle, stored, ran } = setUp({ recording });
    expect(lifecycle.bootConfig().lidar_mode).toBe('2048x10');
    expect(stored().lidar_mode).toBe('2048x10');
    expect(lifecycle.get('staged').lidar_mode).toBe('2048x10');
    expect(lifecycle.recordedOnlyProfile).toBe('LEGACY');
    const error = await lifecycle.setParameter(lifecycle.check({ lidar_mode: '512x10' }, 'active')).catch((e) => e);
    expect((error as ApiError).status).toBe(409);
    expect(ran).toEqual([]);
  });
});
