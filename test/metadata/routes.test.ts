import { afterEach, describe, expect, it } from 'vitest';
import type { Hal } from '../../src/hal/types.js';
import type { StreamPlan } from '../../src/udp/index.js';
import { PRODUCT_MODELS } from '../../src/model/products.js';
import { createTestSensor, removeDir, type TestSensor } from '../helpers/test-sensor.js';
import { waitFor } from '../helpers/poll.js';

const SECTIONS = [
  'sensor_info',
  'lidar_data_format',
  'imu_data_format',
  'beam_intrinsics',
  'imu_intrinsics',
  'lidar_intrinsics',
  'calibration_status',
];

let unit: TestSensor | undefined;
afterEach(async () => {
  if (!unit) return;
  await unit.close();
  removeDir(unit.dataDir);
  unit = undefined;
});

async function get(path: string) {
  const res = await unit!.app.inject({ method: 'GET', url: path });
  return { status: res.statusCode, headers: res.headers, body: res.body ? JSON.parse(res.body) : undefined };
}

async function postConfig(body: unknown) {
  return unit!.app.inject({
    method: 'POST',
    url: '/api/v1/sensor/config',
    payload: body as object,
    headers: { 'content-type': 'application/json' },
  });
}

/** A HAL whose lidar part, once `hold()` is called, waits for `release()` before applying a run: the unit stays INITIALIZING meanwhile. */
function gatedHal(defaults: Hal) {
  let gate = Promise.resolve();
  let release = () => {};
  const apply = async (plan: StreamPlan | null) => {
    await gate;
    return defaults.streams.apply(plan);
  };
  const lidar = new Proxy(defaults.streams, {
    get: (target, key) => (key === 'apply' ? apply : (Reflect.get(target, key) as unknown)),
  });
  const hal = new Proxy(defaults, {
    get: (target, key) => (key === 'streams' ? lidar : (Reflect.get(target, key) as unknown)),
  });
  return {
    hal,
    hold: () => void (gate = new Promise<void>((r) => (release = r))),
    release: () => release(),
  };
}

describe('metadata endpoints', () => {
  it('serve every section with the shapes and types of the spec', async () => {
    unit = await createTestSensor({ product: 'OS-1-64', serial: '122201000998' });
    for (const section of SECTIONS) {
      const res = await get(`/api/v1/sensor/metadata/${section}`);
      expect(res.status, section).toBe(200);
      expect(res.headers['content-type']).toBe('application/json');
    }
    const info = (await get('/api/v1/sensor/metadata/sensor_info')).body;
    expect(Object.keys(info)).toEqual([
      'build_date',
      'build_rev',
      'image_rev',
      'initialization_id',
      'prod_line',
      'prod_pn',
      'prod_sn',
      'status',
    ]);
    expect(info).toMatchObject({
      prod_line: 'OS-1-64',
      prod_sn: '122201000998',
      status: 'RUNNING',
      build_rev: 'v3.1.0',
    });
    expect(info.image_rev).toMatch(/^ousteros-image-prod-[a-z]+-v3\.1\.\d+\+\d{14}$/);
    expect(info.build_date).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(info.initialization_id).toBe(unit.sensor.run.initializationId);
    expect(Number.isInteger(info.initialization_id) && info.initialization_id < 2 ** 24).toBe(true);

    expect((await get('/api/v1/sensor/metadata/lidar_data_format')).body).toEqual({
      column_window: [0, 1023],
      columns_per_frame: 1024,
      columns_per_packet: 16,
      pixel_shift_by_row: expect.any(Array),
      pixels_per_column: 64,
      udp_profile_imu: 'LEGACY',
      udp_profile_lidar: 'RNG19_RFL8_SIG16_NIR16',
    });
    expect((await get('/api/v1/sensor/metadata/imu_data_format')).body).toEqual({
      accel_fsr: 'NORMAL',
      gyro_fsr: 'NORMAL',
    });
    const beams = (await get('/api/v1/sensor/metadata/beam_intrinsics')).body;
    expect(Object.keys(beams).sort()).toEqual([
      'beam_altitude_angles',
      'beam_azimuth_angles',
      'beam_to_lidar_transform',
      'lidar_origin_to_beam_origin_mm',
    ]);
    expect(beams.beam_altitude_angles).toHaveLength(64);
    expect((await get('/api/v1/sensor/metadata/imu_intrinsics')).body.imu_to_sensor_transform).toHaveLength(16);
    expect((await get('/api/v1/sensor/metadata/lidar_intrinsics')).body.lidar_to_sensor_transform).toHaveLength(16);
    const calibration = (await get('/api/v1/sensor/metadata/calibration_status')).body;
    expect(calibration.reflectivity.valid).toBe(true);
    expect(calibration.reflectivity.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
  });

  it('aggregate holds every section and the active configuration', async () => {
    unit = await createTestSensor();
    const all = (await get('/api/v1/sensor/metadata')).body;
    expect(Object.keys(all).sort()).toEqual([
      'beam_intrinsics',
      'calibration_status',
      'config_params',
      'imu_data_format',
      'imu_intrinsics',
      'lidar_data_format',
      'lidar_intrinsics',
      'sensor_info',
    ]);
    for (const section of SECTIONS)
      expect(all[section], section).toEqual((await get(`/api/v1/sensor/metadata/${section}`)).body);
    expect(all.config_params).toEqual((await get('/api/v1/sensor/config')).body);
  });

  it('reflects a configuration change right after the reinit, with a new initialization_id', async () => {
    unit = await createTestSensor({ product: 'OS-0-128' });
    const before = (await get('/api/v1/sensor/metadata')).body;
    const res = await postConfig({
      lidar_mode: '512x20',
      azimuth_window: [300000, 100000],
      udp_profile_lidar: 'RNG15_RFL8_NIR8',
      accel_fsr: 'EXTENDED',
    });
    expect(res.statusCode).toBe(204);
    const after = (await get('/api/v1/sensor/metadata')).body;
    expect(after.sensor_info.initialization_id).not.toBe(before.sensor_info.initialization_id);
    expect(after.sensor_info.prod_sn).toBe(before.sensor_info.prod_sn);
    expect(after.lidar_data_format).toMatchObject({
      columns_per_frame: 512,
      column_window: [370, 85],
      udp_profile_lidar: 'RNG15_RFL8_NIR8',
    });
    expect(after.lidar_data_format.pixel_shift_by_row).toEqual(
      after.beam_intrinsics.beam_azimuth_angles.map((a: number) => Math.round((a * 512) / 360)),
    );
    expect(after.imu_data_format).toEqual({ accel_fsr: 'EXTENDED', gyro_fsr: 'NORMAL' });
    expect(after.config_params).toMatchObject({ lidar_mode: '512x20', azimuth_window: [300000, 100000] });
    expect((await get('/api/v1/sensor/metadata/sensor_info')).body.initialization_id).toBe(
      after.sensor_info.initialization_id,
    );

    // A staged-only change changes nothing the metadata shows.
    await unit.app.inject({
      method: 'POST',
      url: '/api/v1/sensor/config?staging=true&reinit=false&persist=false',
      payload: { lidar_mode: '2048x10' },
    });
    expect((await get('/api/v1/sensor/metadata')).body).toEqual(after);
  });

  it('refuses lidar_data_format and the aggregate with 409 in STANDBY and serves the rest', async () => {
    unit = await createTestSensor();
    expect((await postConfig({ operating_mode: 'STANDBY' })).statusCode).toBe(204);
    for (const path of ['/api/v1/sensor/metadata/lidar_data_format', '/api/v1/sensor/metadata']) {
      const res = await get(path);
      expect(res.status, path).toBe(409);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body.detail).toMatch(/RUNNING.*STANDBY/);
    }
    expect((await get('/api/v1/sensor/metadata/sensor_info')).body.status).toBe('STANDBY');
    for (const section of SECTIONS.filter((s) => s !== 'lidar_data_format'))
      expect((await get(`/api/v1/sensor/metadata/${section}`)).status).toBe(200);

    unit.sensor.run.setStatus('ERROR');
    expect((await get('/api/v1/sensor/metadata/lidar_data_format')).status).toBe(409);
    expect((await get('/api/v1/sensor/metadata/sensor_info')).body.status).toBe('ERROR');
  });

  it('answers 503 with Retry-After while a reinit is under way, then the new metadata', async () => {
    let gate: ReturnType<typeof gatedHal> | undefined;
    unit = await createTestSensor({ hal: (defaults) => (gate = gatedHal(defaults)).hal });
    const oldId = (await get('/api/v1/sensor/metadata/sensor_info')).body.initialization_id;
    gate!.hold();
    const pending = postConfig({ lidar_mode: '2048x10' });
    const duringReinit = async () => {
      const initializing = await waitFor(
        async () => {
          const info = (await get('/api/v1/sensor/metadata/sensor_info')).body;
          return info.status === 'INITIALIZING' && info;
        },
        5000,
        'status INITIALIZING',
      );
      expect(initializing.initialization_id).not.toBe(oldId);
      for (const path of ['/api/v1/sensor/metadata/lidar_data_format', '/api/v1/sensor/metadata']) {
        const res = await get(path);
        expect(res.status, path).toBe(503);
        expect(res.headers['retry-after']).toBe('1');
        expect(res.headers['content-type']).toMatch(/^application\/json/);
      }
      expect((await get('/api/v1/sensor/metadata/beam_intrinsics')).status).toBe(200);
      return initializing.initialization_id as number;
    };
    // A failed assertion must not leave the reinit (and the unit's close) hanging: release in any case.
    const newId = await duringReinit().finally(() => gate!.release());
    expect((await pending).statusCode).toBe(204);
    const after = (await get('/api/v1/sensor/metadata')).body;
    expect(after.sensor_info).toMatchObject({ status: 'RUNNING', initialization_id: newId });
    expect(after.lidar_data_format.columns_per_frame).toBe(2048);
  });

  it('has no other sections, and is read-only', async () => {
    unit = await createTestSensor();
    expect((await get('/api/v1/sensor/metadata/nope')).status).toBe(404);
    expect((await get('/api/v1/sensor/metadata/Sensor_Info')).status).toBe(404);
    const res = await unit.app.inject({ method: 'POST', url: '/api/v1/sensor/metadata/sensor_info', payload: {} });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toMatch(/GET/);
  });
});

describe.each(PRODUCT_MODELS.map((m) => [m.name, m] as const))('a %s unit', (name, model) => {
  it('serves metadata consistent with its model', async () => {
    unit = await createTestSensor({ product: name });
    const all = (await get('/api/v1/sensor/metadata')).body;
    const n = Number(all.sensor_info.prod_line.split('-')[2]);
    expect(all.sensor_info.prod_line).toBe(model.prodLine);
    expect(all.sensor_info.prod_pn).toBe(model.prodPn);
    expect(all.lidar_data_format.pixels_per_column).toBe(n);
    expect(all.beam_intrinsics.beam_altitude_angles).toHaveLength(n);
    expect(all.beam_intrinsics.beam_azimuth_angles).toHaveLength(n);
    expect(all.lidar_data_format.pixel_shift_by_row).toHaveLength(n);
  });
});
