/**
 * A reinit whose HAL step fails (docs/architecture.md, "Reinit is one operation"): the previous active
 * configuration keeps running, the store keeps the previous persisted one, initialization_id comes
 * back, and the client gets a problem+json error instead of a half-applied change.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { StreamPlan } from '../../src/udp/index.js';
import type { Hal } from '../../src/hal/types.js';
import { createTestSensor, removeDir, type TestSensor } from '../helpers/test-sensor.js';

const FAILING_MODE = '2048x10';
const FAILING_COLUMNS = 2048;

/** The sim HAL, except that its lidar part throws on a run in FAILING_MODE; records every run it applies. */
function failingHal(defaults: Hal, applied: (StreamPlan | null)[]): Hal {
  const apply = async (plan: StreamPlan | null) => {
    applied.push(plan);
    if (plan?.lidar?.columnsPerFrame === FAILING_COLUMNS) throw new Error('the lidar could not be reconfigured');
    return defaults.streams.apply(plan);
  };
  const lidar = new Proxy(defaults.streams, {
    get: (target, key) => (key === 'apply' ? apply : (Reflect.get(target, key) as unknown)),
  });
  return { ...defaults, streams: lidar };
}

let unit: TestSensor | undefined;
afterEach(async () => {
  await unit?.close();
  if (unit) removeDir(unit.dataDir);
  unit = undefined;
});

async function inject(u: TestSensor, method: 'GET' | 'POST', url: string, payload?: object) {
  const res = await u.app.inject({
    method,
    url,
    ...(payload ? { payload, headers: { 'content-type': 'application/json' } } : {}),
  });
  return {
    status: res.statusCode,
    type: res.headers['content-type'],
    body: res.body ? JSON.parse(res.body) : undefined,
  };
}

describe('reinit rollback', () => {
  it('a HAL that fails to apply leaves the previous configuration active and persisted and restores the init id', async () => {
    const applied: (StreamPlan | null)[] = [];
    unit = await createTestSensor({ hal: (defaults) => failingHal(defaults, applied) });
    expect(
      (await inject(unit, 'POST', '/api/v1/sensor/config', { lidar_mode: '512x10', udp_dest: '127.0.0.1' })).status,
    ).toBe(204);
    const before = (await inject(unit, 'GET', '/api/v1/sensor/metadata/sensor_info')).body;
    expect(before.status).toBe('RUNNING');

    const failed = await inject(unit, 'POST', '/api/v1/sensor/config', {
      lidar_mode: FAILING_MODE,
      udp_port_lidar: 7777,
    });
    expect(failed.status).toBeGreaterThanOrEqual(500);
    expect(failed.type).toMatch(/^application\/json/);
    expect(failed.body.detail).toContain('previous configuration');

    const active = (await inject(unit, 'GET', '/api/v1/sensor/config')).body;
    expect(active.lidar_mode).toBe('512x10');
    expect(active.udp_port_lidar).not.toBe(7777);
    const after = (await inject(unit, 'GET', '/api/v1/sensor/metadata/sensor_info')).body;
    expect(after.initialization_id).toBe(before.initialization_id);
    expect(after.status).toBe('RUNNING');
    // The failed run was tried, then the previous one was brought up again with the previous init id.
    expect(applied.at(-2)?.lidar?.columnsPerFrame).toBe(FAILING_COLUMNS);
    expect(applied.at(-1)?.lidar?.columnsPerFrame).toBe(512);
    expect(applied.at(-1)?.initId).toBe(before.initialization_id);

    // A power cycle boots what the store holds: the previous persisted configuration.
    unit = await unit.reopen();
    const booted = (await inject(unit, 'GET', '/api/v1/sensor/config')).body;
    expect(booted.lidar_mode).toBe('512x10');
    expect(booted.udp_port_lidar).not.toBe(7777);
  });
});
