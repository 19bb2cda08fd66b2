/** The staged/active/persisted flows of docs/client-behaviour.md, atomic POSTs, reinit and the legacy commands. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestSensor, removeDir, type TestSensor } from '../helpers/test-sensor.js';

let unit: TestSensor;
beforeEach(async () => {
  unit = await createTestSensor();
});
afterEach(async () => {
  await unit.close();
  removeDir(unit.dataDir);
});

const json = { 'content-type': 'application/json' };
const post = (body: unknown, query = '', remoteAddress?: string) =>
  unit.app.inject({
    method: 'POST',
    url: `/api/v1/sensor/config${query}`,
    headers: json,
    payload: JSON.stringify(body),
    remoteAddress,
  });
const getConfig = async (query = '') => (await unit.app.inject({ url: `/api/v1/sensor/config${query}` })).json();

describe('POST /api/v1/sensor/config', () => {
  it('applies several parameters at once: active, staged and (after a power cycle) persisted', async () => {
    const initBefore = unit.sensor.run.initializationId;
    const res = await post({ lidar_mode: '2048x10', udp_port_lidar: 9000, phase_lock_enable: true });
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect(unit.sensor.run.initializationId).not.toBe(initBefore);
    expect(unit.sensor.run.status).toBe('RUNNING');
    for (const view of ['', '?staging=true']) {
      expect(await getConfig(view)).toMatchObject({
        lidar_mode: '2048x10',
        udp_port_lidar: 9000,
        phase_lock_enable: true,
      });
    }
    unit = await unit.reopen();
    expect(await getConfig()).toMatchObject({ lidar_mode: '2048x10', udp_port_lidar: 9000, phase_lock_enable: true });
  });

  it('is atomic: one bad value → 400 listing every wrong parameter, nothing applied, no reinit', async () => {
    const before = await getConfig();
    const initBefore = unit.sensor.run.initializationId;
    const res = await post({
      lidar_mode: '512x20',
      udp_port_lidar: 70000,
      operating_mode: 'standby',
      signal_multiplier: 0.3,
      no_such: 1,
    });
    expect(res.statusCode).toBe(400);
    const pointers = res
      .json()
      .errors.map((e: { pointer: string }) => e.pointer)
      .sort();
    expect(pointers).toEqual(['/no_such', '/operating_mode', '/signal_multiplier', '/udp_port_lidar']);
    expect(await getConfig()).toEqual(before);
    expect(await getConfig('?staging=true')).toEqual(before);
    expect(unit.sensor.run.initializationId).toBe(initBefore);
  });

  it('refuses an incompatible combination on the would-be active configuration', async () => {
    const res = await post({ signal_multiplier: 3, azimuth_window: [0, 180000] });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([
      { pointer: '/azimuth_window', detail: 'spans 180 degrees; signal_multiplier 3 allows at most 120 degrees' },
    ]);
    expect((await getConfig()).signal_multiplier).toBe(1);
  });

  it('counts the real width of a wrapping window', async () => {
    expect((await post({ signal_multiplier: 3, azimuth_window: [300000, 60000] })).statusCode).toBe(204);
    expect((await post({ azimuth_window: [300000, 60001] })).statusCode).toBe(400);
    expect((await post({ signal_multiplier: 2, azimuth_window: [270000, 90000] })).statusCode).toBe(204);
  });

  it('accepts back the entire object it returned, read-only columns_per_packet included', async () => {
    const config = await getConfig();
    const res = await post({ ...config, lidar_mode: '512x10' });
    expect(res.statusCode).toBe(204);
    expect((await getConfig()).lidar_mode).toBe('512x10');
    expect((await post({ columns_per_packet: 8 })).statusCode).toBe(400);
  });

  it('maps the deprecated names and never returns them', async () => {
    expect((await post({ udp_ip: '127.0.0.5', auto_start_flag: 0 })).statusCode).toBe(204);
    const config = await getConfig();
    expect(config).toMatchObject({ udp_dest: '127.0.0.5', operating_mode: 'STANDBY' });
    expect(config).not.toHaveProperty('udp_ip');
    expect(config).not.toHaveProperty('auto_start_flag');
    expect(unit.sensor.run.status).toBe('STANDBY');
    expect((await post({ auto_start_flag: 1 })).statusCode).toBe(204);
    expect((await getConfig()).operating_mode).toBe('NORMAL');
    expect((await post({ auto_start_flag: 2 })).statusCode).toBe(400);
    expect((await unit.app.inject({ url: '/api/v1/sensor/config/udp_ip' })).statusCode).toBe(404);
  });

  it('refuses bodies that are not a JSON object', async () => {
    for (const payload of ['[]', '"lidar_mode"', '42', 'null', '{"lidar_mode":', '']) {
      const res = await unit.app.inject({ method: 'POST', url: '/api/v1/sensor/config', headers: json, payload });
      expect(res.statusCode, payload).toBe(400);
      expect(res.json().detail.length).toBeGreaterThan(10);
    }
  });
});

describe('staging flows (docs/client-behaviour.md)', () => {
  it('stage only, read staged, then apply what was staged', async () => {
    const initBefore = unit.sensor.run.initializationId;
    expect((await post({ lidar_mode: '512x10' }, '?staging=true&reinit=false&persist=false')).statusCode).toBe(204);
    expect(unit.sensor.run.initializationId).toBe(initBefore);
    expect((await getConfig('?staging=true')).lidar_mode).toBe('512x10');
    expect((await getConfig('?staging=false')).lidar_mode).toBe('1024x10');
    expect((await getConfig()).lidar_mode).toBe('1024x10');

    expect((await post({}, '?staging=true&reinit=true&persist=false')).statusCode).toBe(204);
    expect(unit.sensor.run.initializationId).not.toBe(initBefore);
    expect((await getConfig()).lidar_mode).toBe('512x10');
    expect(unit.sensor.configs.reported('persisted').lidar_mode).toBe('1024x10');

    expect((await post({}, '?persist=true&reinit=false')).statusCode).toBe(204);
    expect(unit.sensor.configs.reported('persisted').lidar_mode).toBe('512x10');
  });

  it('stages a value valid only together with another staged value', async () => {
    expect((await post({ signal_multiplier: 3 }, '?reinit=false&persist=false')).statusCode).toBe(204);
    expect((await post({ azimuth_window: [0, 120000] }, '?reinit=false&persist=false')).statusCode).toBe(204);
    expect((await post({}, '?reinit=true&persist=true')).statusCode).toBe(204);
    expect(await getConfig()).toMatchObject({ signal_multiplier: 3, azimuth_window: [0, 120000] });
  });

  it('applying an incompatible staged configuration is refused and leaves active untouched', async () => {
    await post({ signal_multiplier: 3 }, '?reinit=false&persist=false');
    const res = await post({}, '?reinit=true');
    expect(res.statusCode).toBe(400);
    expect((await getConfig()).signal_multiplier).toBe(1);
  });

  it('@auto with reinit=False&persist=False shows the caller address in staged, IPv4-mapped stripped', async () => {
    const res = await post({ udp_dest: '@auto' }, '?reinit=False&persist=False', '::ffff:10.1.2.3');
    expect(res.statusCode).toBe(204);
    expect((await getConfig('?staging=true')).udp_dest).toBe('10.1.2.3');
    expect((await getConfig()).udp_dest).toBe('');
    expect((await post({ udp_dest: '' }, '?reinit=false&persist=false')).statusCode).toBe(204);
    expect((await getConfig('?staging=true')).udp_dest).toBe('');
  });

  it('@auto through PUT is a 400', async () => {
    const res = await unit.app.inject({
      method: 'PUT',
      url: '/api/v1/sensor/config/udp_dest',
      headers: json,
      payload: '"@auto"',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].detail).toContain('only through POST');
  });

  it('rejects unknown or malformed flags', async () => {
    expect((await post({}, '?reinit=yes')).statusCode).toBe(400);
    expect((await post({}, '?bogus=1')).statusCode).toBe(400);
    expect((await unit.app.inject({ url: '/api/v1/sensor/config?staging=maybe' })).statusCode).toBe(400);
  });
});

describe('PUT /api/v1/sensor/config/<name>', () => {
  it('STANDBY and back to NORMAL, each a reinit with status to match', async () => {
    const put = (value: string) =>
      unit.app.inject({
        method: 'PUT',
        url: '/api/v1/sensor/config/operating_mode',
        headers: json,
        payload: JSON.stringify(value),
      });
    const first = unit.sensor.run.initializationId;
    expect((await put('STANDBY')).statusCode).toBe(204);
    expect(unit.sensor.run.status).toBe('STANDBY');
    const second = unit.sensor.run.initializationId;
    expect(second).not.toBe(first);
    expect((await put('NORMAL')).statusCode).toBe(204);
    expect(unit.sensor.run.status).toBe('RUNNING');
    expect(unit.sensor.run.initializationId).not.toBe(second);
  });

  it('needs Content-Type: application/json (415) and a body (400); unknown names are 404 naming them', async () => {
    const noType = await unit.app.inject({
      method: 'PUT',
      url: '/api/v1/sensor/config/lidar_mode',
      payload: '"512x10"',
    });
    expect(noType.statusCode).toBe(415);
    const empty = await unit.app.inject({ method: 'PUT', url: '/api/v1/sensor/config/lidar_mode', headers: json });
    expect(empty.statusCode).toBe(400);
    const unknown = await unit.app.inject({
      method: 'PUT',
      url: '/api/v1/sensor/config/Lidar_Mode',
      headers: json,
      payload: '"512x10"',
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().detail).toContain('"Lidar_Mode"');
    expect((await unit.app.inject({ url: '/api/v1/sensor/config/nope' })).statusCode).toBe(404);
    expect((await getConfig()).lidar_mode).toBe('1024x10');
  });

  it('GET of one parameter is 200 with the JSON value, keywords quoted', async () => {
    const res = await unit.app.inject({ url: '/api/v1/sensor/config/lidar_mode' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.body).toBe('"1024x10"');
    expect((await unit.app.inject({ url: '/api/v1/sensor/config/azimuth_window' })).body).toBe('[0,360000]');
    expect((await unit.app.inject({ url: '/api/v1/sensor/config/udp_port_imu' })).body).toBe('7503');
  });

  it('does not pull in other staged changes', async () => {
    await post({ lidar_mode: '512x10' }, '?reinit=false&persist=false');
    await unit.app.inject({ method: 'PUT', url: '/api/v1/sensor/config/udp_port_imu', headers: json, payload: '9999' });
    expect(await getConfig()).toMatchObject({ lidar_mode: '1024x10', udp_port_imu: 9999 });
    expect(await getConfig('?staging=true')).toMatchObject({ lidar_mode: '512x10', udp_port_imu: 9999 });
  });
});

describe('legacy command endpoints (byte-exact bodies)', () => {
  const get = (path: string, remoteAddress?: string) =>
    unit.app.inject({ url: `/api/v1/sensor/cmd/${path}`, remoteAddress });

  it('set_config_param stages, reinitialize applies, save_config_params persists', async () => {
    const set = await get(`set_config_param?args=lidar_mode+${encodeURIComponent('"512x20"')}`);
    expect(set.statusCode).toBe(200);
    expect(set.body).toBe('"set_config_param"');
    expect(set.headers['content-type']).toBe('application/json');
    expect((await get('get_config_param?args=staged')).json().lidar_mode).toBe('512x20');
    expect((await get('get_config_param?args=active')).json().lidar_mode).toBe('1024x10');
    expect((await get('get_config_param?args=lidar_mode')).body).toBe('"1024x10"');

    const reinit = await get('reinitialize');
    expect(reinit.statusCode).toBe(200);
    expect(reinit.body).toBe('{}');
    expect((await get('get_config_param?args=active')).json().lidar_mode).toBe('512x20');
    expect(unit.sensor.configs.reported('persisted').lidar_mode).toBe('1024x10');

    const save = await get('save_config_params');
    expect(save.body).toBe('{}');
    expect(unit.sensor.configs.reported('persisted').lidar_mode).toBe('512x20');
  });

  it('set_config_param with "." stages a whole object; bare keywords are accepted', async () => {
    const whole = JSON.stringify({ udp_port_lidar: 7000, udp_port_imu: 7001 });
    expect((await get(`set_config_param?args=.+${encodeURIComponent(whole)}`)).body).toBe('"set_config_param"');
    expect((await get('set_config_param?args=operating_mode+STANDBY')).body).toBe('"set_config_param"');
    expect((await get('get_config_param?args=staged')).json()).toMatchObject({
      udp_port_lidar: 7000,
      udp_port_imu: 7001,
      operating_mode: 'STANDBY',
    });
  });

  it('set_udp_dest_auto stages the caller address', async () => {
    const res = await get('set_udp_dest_auto', '127.0.0.9');
    expect(res.body).toBe('{}');
    expect((await get('get_config_param?args=staged')).json().udp_dest).toBe('127.0.0.9');
  });

  it('refuses bad args with a 400 and changes nothing', async () => {
    for (const args of ['lidar_mode+%22bogus%22', 'nope+1', 'lidar_mode', '.+%5B1%5D']) {
      expect((await get(`set_config_param?args=${args}`)).statusCode, args).toBe(400);
    }
    expect((await get('get_config_param?args=bogus')).statusCode).toBe(400);
    expect((await get('get_config_param')).statusCode).toBe(400);
    expect((await get('get_config_param?args=staged')).json()).toEqual(
      (await get('get_config_param?args=active')).json(),
    );
  });
});
