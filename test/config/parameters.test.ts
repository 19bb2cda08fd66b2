/** Every parameter's valid and invalid values, through PUT and POST, read back through GET. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PARAMETERS, defaultConfig } from '../../src/config/registry.js';
import { createTestSensor, type TestSensor } from '../helpers/test-sensor.js';

/** Values each parameter must accept and refuse. Refused ones include wrong case and wrong JSON types. */
const CASES: Record<string, { valid: unknown[]; invalid: unknown[] }> = {
  udp_dest: {
    valid: ['', '127.0.0.1', '192.0.2.10', '::1', 'fe80::1', 'host.example', 'my-laptop'],
    invalid: [5, null, '300.1.1.1', '1.2.3', 'bad host', '-x.example', 'a'.repeat(254), ['127.0.0.1']],
  },
  udp_port_lidar: { valid: [0, 1, 7502, 65535], invalid: [-1, 65536, 7502.5, '7502', true, null] },
  udp_port_imu: { valid: [0, 7503, 65535], invalid: [-1, 65536, '7503', 1e10] },
  udp_dest_zm: { valid: ['', '127.0.0.1', '::1', 'host.example'], invalid: [5, null, '300.1.1.1', 'bad host'] },
  udp_port_zm: { valid: [0, 7504, 65535], invalid: [-1, 65536, '7504', 1.5] },
  udp_profile_lidar: {
    valid: [
      'RNG19_RFL8_SIG16_NIR16',
      'RNG19_RFL8_SIG16_NIR16_DUAL',
      'RNG15_RFL8_NIR8',
      'FUSA_RNG15_RFL8_NIR8_DUAL',
      'RNG19_RFL8_SIG16_NIR16_ZONE16',
      'RNG15_RFL8_NIR8_ZONE16',
      'RNG19_RFL8_SIG16_ZONE16_DUAL',
    ],
    invalid: ['rng19_rfl8_sig16_nir16', 'LEGACY', '', 1],
  },
  udp_profile_imu: {
    valid: ['LEGACY', 'ACCEL32_GYRO32_NMEA'],
    invalid: ['legacy', 'accel32_gyro32_nmea', 'ACCEL32_GYRO32', 0],
  },
  columns_per_packet: { valid: [16], invalid: [8, 32, '16'] },
  return_order: {
    valid: ['STRONGEST_TO_WEAKEST', 'NEAREST_TO_FARTHEST', 'FARTHEST_TO_NEAREST'],
    invalid: ['strongest_to_weakest', 'NEAREST', null],
  },
  timestamp_mode: {
    valid: ['TIME_FROM_INTERNAL_OSC', 'TIME_FROM_SYNC_PULSE_IN', 'TIME_FROM_PTP_1588'],
    invalid: ['TIME_FROM_PTP_1588 ', 'time_from_internal_osc', 3],
  },
  sync_pulse_in_polarity: { valid: ['ACTIVE_HIGH', 'ACTIVE_LOW'], invalid: ['Active_High', 'HIGH'] },
  nmea_in_polarity: { valid: ['ACTIVE_HIGH', 'ACTIVE_LOW'], invalid: ['active_low', false] },
  nmea_ignore_valid_char: { valid: [0, 1], invalid: [2, -1, true, '1', 0.5] },
  nmea_baud_rate: { valid: ['BAUD_9600', 'BAUD_115200'], invalid: ['9600', 'BAUD_4800', 'baud_9600'] },
  nmea_leap_seconds: { valid: [0, 37, 1000], invalid: [-1, 1.5, '37'] },
  multipurpose_io_mode: {
    valid: [
      'OFF',
      'INPUT_NMEA_UART',
      'OUTPUT_FROM_INTERNAL_OSC',
      'OUTPUT_FROM_SYNC_PULSE_IN',
      'OUTPUT_FROM_PTP_1588',
      'OUTPUT_FROM_ENCODER_ANGLE',
    ],
    invalid: ['off', 'ON', ''],
  },
  sync_pulse_out_polarity: { valid: ['ACTIVE_HIGH', 'ACTIVE_LOW'], invalid: ['ACTIVE_MEDIUM'] },
  sync_pulse_out_frequency: { valid: [1, 10, 1000], invalid: [0, -1, 1.5, '1'] },
  sync_pulse_out_angle: { valid: [0, 180, 360], invalid: [-1, 361, 90.5] },
  sync_pulse_out_pulse_width: { valid: [1, 10, 500], invalid: [0, -5, 2.5, '10'] },
  operating_mode: { valid: ['STANDBY', 'NORMAL'], invalid: ['standby', 'Normal', 'OFF', 1] },
  lidar_mode: {
    valid: ['512x10', '1024x10', '2048x10', '512x20', '1024x20'],
    invalid: ['2048x20', '4096x5', '1024X10', '1024x10 ', 1024],
  },
  azimuth_window: {
    valid: [
      [0, 360000],
      [90000, 270000],
      [300000, 100000],
      [0, 1],
    ],
    invalid: [[0], [0, 1, 2], [-1, 100], [0, 360001], [0.5, 100], [5, 5], 'all', { a: 0 }],
  },
  signal_multiplier: { valid: [0.25, 0.5, 1, 2, 3], invalid: [0.3, 1.2, 5, 5.5, '1', 0, 4] },
  phase_lock_enable: { valid: [true, false], invalid: [0, 1, 'true', null] },
  phase_lock_offset: { valid: [0, 180000, 360000], invalid: [-1, 360001, 1.5] },
  min_range_threshold_cm: { valid: [0, 30, 50], invalid: [10, 31, -1, '50', 100] },
  gyro_fsr: { valid: ['NORMAL', 'EXTENDED'], invalid: ['normal', 'HIGH'] },
  accel_fsr: { valid: ['NORMAL', 'EXTENDED'], invalid: ['extended', 2] },
  // Firmware 3.2's own.
  udp_multicast_ttl: { valid: [1, 64, 255], invalid: [0, 256, -1, 1.5, '1', null] },
  udp_multicast_ttl_zm: { valid: [1, 32, 255], invalid: [0, 256, '255'] },
  lidar_frame_azimuth_offset: { valid: [0, 90000, 359999, 360000], invalid: [-1, 360001, 1.5, '0'] },
  bloom_reduction_optimization: {
    valid: ['BALANCED', 'MINIMIZE_FALSE_POSITIVES'],
    invalid: ['balanced', 'OFF', 0, ''],
  },
  header_type: { valid: ['STANDARD', 'FUSA'], invalid: ['standard', 'fusa', 'LEGACY', 1] },
  imu_packets_per_frame: { valid: [1, 2, 4, 8, 16], invalid: [0, 3, 32, '8', 8.5] },
};

let unit: TestSensor;
beforeAll(async () => {
  // Firmware 3.2: every parameter of the registry, Zone Monitor's included.
  unit = await createTestSensor({ unit: { firmwareVersion: '3.2' } });
});
afterAll(() => unit.close());

const put = (name: string, value: unknown) =>
  unit.app.inject({
    method: 'PUT',
    url: `/api/v1/sensor/config/${name}`,
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify(value),
  });
const post = (body: unknown) =>
  unit.app.inject({
    method: 'POST',
    url: '/api/v1/sensor/config',
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
const getParam = async (name: string) => (await unit.app.inject({ url: `/api/v1/sensor/config/${name}` })).json();

describe('the parameter registry', () => {
  it("covers the 27 parameters of the spec and firmware 3.2's eight, and every one has cases here", () => {
    expect(PARAMETERS).toHaveLength(35);
    expect(Object.keys(CASES).sort()).toEqual(PARAMETERS.map((p) => p.name).sort());
  });

  it('GET /api/v1/sensor/config returns every parameter, in the order of a real unit, with the defaults', async () => {
    const res = await unit.app.inject({ url: '/api/v1/sensor/config' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(Object.keys(res.json())).toEqual(PARAMETERS.map((p) => p.name));
    expect(res.json()).toEqual(defaultConfig());
    expect(res.json().timestamp_mode).toBe('TIME_FROM_INTERNAL_OSC');
    expect(res.json().udp_dest).toBe('');
    expect(res.json().min_range_threshold_cm).toBe(50);
  });
});

describe.each(Object.entries(CASES))('%s', (name, { valid, invalid }) => {
  const isReadOnly = PARAMETERS.find((p) => p.name === name)?.readOnly;
  // azimuth_window wider than the multiplier allows is a combination rule, tested separately.
  it.each(valid.map((v) => [JSON.stringify(v), v]))(
    'accepts %s through PUT and reads it back',
    async (_label, value) => {
      const res = await put(name, value);
      expect(res.statusCode, res.body).toBe(204);
      expect(await getParam(name)).toEqual(value);
    },
  );

  it.each(invalid.map((v) => [JSON.stringify(v), v]))(
    'refuses %s with a 400 naming the parameter, changing nothing',
    async (_label, value) => {
      const before = (await unit.app.inject({ url: '/api/v1/sensor/config' })).json();
      const initBefore = unit.sensor.run.initializationId;
      const res = await put(name, value);
      expect(res.statusCode).toBe(400);
      expect(res.headers['content-type']).toBe('application/json');
      const body = res.json();
      expect(body.status).toBe(400);
      expect(body.errors[0].pointer.startsWith(`/${name}`)).toBe(true);
      expect(body.detail).toContain(name);
      expect((await unit.app.inject({ url: '/api/v1/sensor/config' })).json()).toEqual(before);
      expect(unit.sensor.run.initializationId).toBe(initBefore);
    },
  );

  if (!isReadOnly) {
    it('is accepted in a POST too', async () => {
      const res = await post({ [name]: valid[valid.length - 1] });
      expect(res.statusCode, res.body).toBe(204);
      expect(await getParam(name)).toEqual(valid[valid.length - 1]);
    });
  }
});

describe('error messages', () => {
  it('a keyword in the wrong letter case says so and names the right spelling', async () => {
    const res = await put('operating_mode', 'standby');
    expect(res.json().errors[0].detail).toMatch(/letter case.*"STANDBY"/);
  });

  it('a range error states both bounds', async () => {
    const res = await put('udp_port_lidar', 70000);
    expect(res.json().errors[0].detail).toBe('must be between 0 and 65535; got 70000');
  });
});
