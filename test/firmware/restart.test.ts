/**
 * Restart semantics: POST /api/v1/system/restart and the pre-3.1 POST /api/v1/system/cmd/reboot
 * answer 204, then the unit reboots: unreachable (503 + Retry-After) while down, then active :=
 * persisted, staged := active, a new initialization_id, INITIALIZING → RUNNING.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { StreamsHal } from '../../src/hal/streams.js';
import type { SensorStatus } from '../../src/core/status.js';
import { defaultConfig } from '../../src/config/registry.js';
import { createTestSensor, removeDir, type TestSensor } from '../helpers/test-sensor.js';
import { waitFor } from '../helpers/poll.js';

/** Holds the unit "down" during a restart: the stop of the streams waits until released. */
function holdableLidar(inner: StreamsHal) {
  let gate: Promise<void> | undefined;
  let open = () => {};
  return {
    hold() {
      gate = new Promise<void>((r) => (open = r));
    },
    release() {
      open();
      gate = undefined;
    },
    // A proxy, so every other member of the real data plane (class methods included) works unchanged.
    hal: new Proxy(inner, {
      get(target, property) {
        if (property === 'apply') {
          return async (run: Parameters<StreamsHal['apply']>[0]) => {
            if (run === null && gate) await gate;
            return target.apply(run);
          };
        }
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    }),
  };
}

const sensors: TestSensor[] = [];
afterEach(async () => {
  for (const t of sensors.splice(0)) {
    await t.close();
    removeDir(t.dataDir);
  }
});

async function unit() {
  let lidar: ReturnType<typeof holdableLidar> | undefined;
  const t = await createTestSensor({
    hal: (defaults) => {
      lidar = holdableLidar(defaults.streams);
      return { ...defaults, streams: lidar.hal };
    },
  });
  sensors.push(t);
  return { t, lidar: lidar! };
}

describe.each(['/api/v1/system/restart', '/api/v1/system/cmd/reboot'])('POST %s', (path) => {
  it('drops what was not persisted and boots the persisted configuration with a new initialization_id', async () => {
    const { t, lidar } = await unit();
    const json = { 'content-type': 'application/json' };
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/v1/sensor/config',
          headers: json,
          payload: { udp_port_imu: 7600 },
        })
      ).statusCode,
    ).toBe(204);
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/v1/sensor/config?staging=true&reinit=false&persist=false',
          headers: json,
          payload: { lidar_mode: '512x10' },
        })
      ).statusCode,
    ).toBe(204);
    expect(
      (
        await t.app.inject({
          method: 'POST',
          url: '/api/v1/sensor/config?reinit=true&persist=false',
          headers: json,
          payload: { udp_port_lidar: 7777 },
        })
      ).statusCode,
    ).toBe(204);
    expect(t.sensor.configs.reported('active')).toMatchObject({
      udp_port_imu: 7600,
      lidar_mode: '512x10',
      udp_port_lidar: 7777,
    });
    expect(t.sensor.configs.reported('persisted')).toMatchObject({
      udp_port_imu: 7600,
      lidar_mode: defaultConfig().lidar_mode,
      udp_port_lidar: defaultConfig().udp_port_lidar,
    });
    const initBefore = t.sensor.run.initializationId;
    const statuses: SensorStatus[] = [];
    t.sensor.events.on('status', (s) => statuses.push(s));

    lidar.hold();
    // Clients send an empty body with a JSON Content-Type.
    const res = await t.app.inject({ method: 'POST', url: path, headers: json });
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    await waitFor(() => t.sensor.power.rebooting, 5000, 'the reboot to begin');

    // A rebooting unit is unreachable.
    const down = await t.app.inject({ method: 'GET', url: '/api/v1/sensor/config' });
    expect(down.statusCode).toBe(503);
    expect(Number(down.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(down.headers['content-type']).toBe('application/json');

    lidar.release();
    await waitFor(
      () => !t.sensor.power.rebooting && t.sensor.run.status === 'RUNNING',
      10_000,
      'the unit to come back',
    );
    const active = (await t.app.inject({ method: 'GET', url: '/api/v1/sensor/config' })).json();
    const staged = (await t.app.inject({ method: 'GET', url: '/api/v1/sensor/config?staging=true' })).json();
    expect(active).toEqual(t.sensor.configs.reported('persisted'));
    expect(active).toMatchObject({
      udp_port_imu: 7600,
      lidar_mode: defaultConfig().lidar_mode,
      udp_port_lidar: defaultConfig().udp_port_lidar,
    });
    expect(staged).toEqual(active);
    const info = (await t.app.inject({ method: 'GET', url: '/api/v1/sensor/metadata/sensor_info' })).json();
    expect(info.initialization_id).not.toBe(initBefore);
    expect(info.initialization_id).toBe(t.sensor.run.initializationId);
    expect(info.status).toBe('RUNNING');
    expect(statuses[0]).toBe('INITIALIZING');
    expect(statuses.at(-1)).toBe('RUNNING');
    // No firmware change: a plain restart boots the committed image.
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/system/firmware' })).json()).toEqual({
      commit_pending: false,
      fw: info.image_rev,
    });
  });

  it.each([
    ['a JSON body', { 'content-type': 'application/json' }, '{"delay_s":5}', /a body of 13 bytes/],
    ['a text body', { 'content-type': 'text/plain' }, 'now', /a body of 3 bytes/],
    ['a chunked body', { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }, '{}', /chunked/],
  ])('refuses %s with a 400 naming it, and does not restart', async (_kind, headers, payload, size) => {
    const { t } = await unit();
    const initBefore = t.sensor.run.initializationId;
    const res = await t.app.inject({ method: 'POST', url: path, headers, payload });
    expect(res.statusCode).toBe(400);
    expect(res.json().detail).toMatch(new RegExp(`^POST ${path} takes no request body; got `));
    expect(res.json().detail).toMatch(size);
    expect(res.json().detail).toMatch(/the unit did not restart$/);
    expect(t.sensor.power.rebooting).toBe(false);
    const info = (await t.app.inject({ method: 'GET', url: '/api/v1/sensor/metadata/sensor_info' })).json();
    expect(info).toMatchObject({ status: 'RUNNING', initialization_id: initBefore });
  });
});
