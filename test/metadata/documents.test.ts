import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/registry.js';
import { LIDAR_MODES, type SensorConfig, type SensorIdentity } from '../../src/model/index.js';
import { ApiError } from '../../src/model/errors.js';
import {
  INIT_ID_LIMIT,
  SERIAL_LIMIT,
  generateSerial,
  makeIdentity,
  nextInitializationId,
} from '../../src/model/identity.js';
import { SensorMetadata } from '../../src/core/metadata.js';
import type { SensorStatus } from '../../src/core/status.js';
import { PRODUCT_MODELS, findProduct } from '../../src/model/products.js';

const TURN = 360_000;
// Full, narrow, wrapping, and at the widths signal_multiplier 2 and 3 allow (straight and wrapping).
const AZIMUTH_WINDOWS: [number, number][] = [
  [0, TURN],
  [10_000, 12_500],
  [300_000, 100_000],
  [90_000, 270_000],
  [270_000, 90_000],
  [0, 120_000],
  [340_000, 100_000],
];

/** The device core's state the documents are derived from, changed by the tests as the core would. */
interface TestSource {
  identity: SensorIdentity;
  initializationId: number;
  status: SensorStatus;
  activeConfig: SensorConfig;
}

function metadataOf(src: TestSource): SensorMetadata {
  return new SensorMetadata({
    identity: () => src.identity,
    initializationId: () => src.initializationId,
    status: () => src.status,
    config: () => src.activeConfig,
  });
}

function source(productName: string, config: SensorConfig, status: SensorStatus = 'RUNNING'): TestSource {
  const s: TestSource = {
    identity: makeIdentity(findProduct(productName)!, generateSerial()),
    initializationId: nextInitializationId(),
    status,
    activeConfig: config,
  };
  return s;
}

/** docs/client-behaviour.md, Metadata, written out here independently of src/model/lidar-geometry.ts. */
function expectedColumnWindow([a0, a1]: [number, number], cpf: number): [number, number] {
  if (a0 === 0 && a1 === TURN) return [0, cpf - 1];
  return [(Math.floor(((TURN - a1) * cpf) / TURN) + 1) % cpf, Math.floor(((TURN - a0) * cpf) / TURN) % cpf];
}

describe.each(PRODUCT_MODELS.map((m) => [m.name] as const))('metadata of %s', (name) => {
  it.each(LIDAR_MODES)('in %s, for every azimuth window', (mode) => {
    for (const window of AZIMUTH_WINDOWS) {
      const config = { ...defaultConfig(), lidar_mode: mode, azimuth_window: window };
      const src = source(name, config);
      const all = metadataOf(src).all();
      const cpf = Number(mode.split('x')[0]);
      const n = all.lidar_data_format.pixels_per_column;

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
      expect(n).toBe(Number(all.sensor_info.prod_line.split('-')[2]));
      expect(all.beam_intrinsics.beam_altitude_angles).toHaveLength(n);
      expect(all.beam_intrinsics.beam_azimuth_angles).toHaveLength(n);
      for (const matrix of [
        all.beam_intrinsics.beam_to_lidar_transform,
        all.imu_intrinsics.imu_to_sensor_transform,
        all.lidar_intrinsics.lidar_to_sensor_transform,
      ]) {
        expect(matrix).toHaveLength(16);
        expect(matrix.every((x) => typeof x === 'number' && Number.isFinite(x))).toBe(true);
      }

      const format = all.lidar_data_format;
      expect(format.columns_per_frame).toBe(cpf);
      expect(format.columns_per_packet).toBe(16);
      expect(format.udp_profile_lidar).toBe(config.udp_profile_lidar);
      expect(format.udp_profile_imu).toBe('LEGACY');
      expect(format.pixel_shift_by_row).toEqual(
        all.beam_intrinsics.beam_azimuth_angles.map((az) => Math.round((az * cpf) / 360)),
      );
      expect(format.column_window, `${window}`).toEqual(expectedColumnWindow(window, cpf));
      for (const c of format.column_window) expect(Number.isInteger(c) && c >= 0 && c <= cpf - 1).toBe(true);

      const info = all.sensor_info;
      expect(BigInt(info.prod_sn) < SERIAL_LIMIT).toBe(true);
      expect(info.prod_sn).toMatch(/^[0-9]+$/);
      expect(Number.isInteger(info.initialization_id) && info.initialization_id < INIT_ID_LIMIT).toBe(true);
      expect(info.initialization_id).toBe(src.initializationId);
      for (const key of ['prod_line', 'image_rev', 'status', 'prod_pn', 'build_rev', 'build_date'] as const)
        expect(info[key]).toMatch(/./);
      expect(info.build_date).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
      expect(all.calibration_status.reflectivity.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
      expect(all.config_params).toEqual(config);
    }
  });
});

describe('the metadata cache', () => {
  it('computes the documents once per initialization_id and follows a reinit at once', () => {
    const src = source('OS-1-64', defaultConfig());
    const metadata = metadataOf(src);
    const before = metadata.lidarDataFormat();
    expect(metadata.lidarDataFormat()).toBe(before);
    expect(metadata.beamIntrinsics()).toBe(metadata.all().beam_intrinsics);

    // A reinit: new active configuration and a new initialization_id, as the device core commits them.
    src.activeConfig = {
      ...defaultConfig(),
      lidar_mode: '2048x10',
      azimuth_window: [300_000, 100_000],
      gyro_fsr: 'EXTENDED',
    };
    const previousId = src.initializationId;
    src.initializationId = nextInitializationId(previousId);
    const after = metadata.all();
    expect(after.sensor_info.initialization_id).not.toBe(previousId);
    expect(after.lidar_data_format.columns_per_frame).toBe(2048);
    expect(after.lidar_data_format.column_window).toEqual([1480, 341]);
    // defaultConfig() is a 3.2 unit's (it has header_type): the data formats carry 3.2's members too.
    expect(after.imu_data_format).toEqual({
      accel_fsr: 'NORMAL',
      gyro_fsr: 'EXTENDED',
      imu_measurements_per_packet: 1,
      imu_packets_per_frame: 8,
    });
    expect(after.config_params.lidar_mode).toBe('2048x10');
  });

  it('does not pin the old configuration to a new id read in the middle of a reinit', () => {
    const src = source('OS-1-32', defaultConfig(), 'INITIALIZING');
    const metadata = metadataOf(src);
    // The device core takes the new id first, then the HAL starts the new configuration.
    src.initializationId = nextInitializationId(src.initializationId);
    expect(metadata.imuDataFormat().gyro_fsr).toBe('NORMAL');
    src.activeConfig = { ...defaultConfig(), lidar_mode: '512x20', gyro_fsr: 'EXTENDED' };
    src.status = 'RUNNING';
    expect(metadata.lidarDataFormat().columns_per_frame).toBe(512);
    expect(metadata.imuDataFormat().gyro_fsr).toBe('EXTENDED');
  });

  it('keeps a copy of the configuration it was derived from', () => {
    const config = defaultConfig();
    const src = source('OS-0-32', config);
    const metadata = metadataOf(src);
    metadata.all();
    config.lidar_mode = '512x20'; // a caller mutating its object afterwards changes nothing served
    expect(metadata.all().config_params.lidar_mode).toBe('1024x10');
  });

  it('reports the live status in sensor_info', () => {
    const src = source('OS-2-128', defaultConfig(), 'INITIALIZING');
    const metadata = metadataOf(src);
    expect(metadata.sensorInfo().status).toBe('INITIALIZING');
    src.status = 'RUNNING';
    expect(metadata.sensorInfo().status).toBe('RUNNING');
    src.status = 'STANDBY';
    expect(metadata.sensorInfo().status).toBe('STANDBY');
  });

  it.each([
    ['INITIALIZING', 503],
    ['STANDBY', 409],
    ['ERROR', 409],
    ['UPDATING', 409],
  ] as const)('refuses lidar_data_format and the aggregate while %s (%i)', (status, code) => {
    const metadata = metadataOf(source('OS-1-128', defaultConfig(), status));
    for (const read of [() => metadata.lidarDataFormat(), () => metadata.all()]) {
      const error = (() => {
        try {
          read();
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).status).toBe(code);
      if (code === 503) expect((error as ApiError).headers?.['Retry-After']).toBe('1');
    }
    // Everything else is served in every state.
    expect(metadata.beamIntrinsics().beam_altitude_angles).toHaveLength(128);
    expect(metadata.sensorInfo().status).toBe(status);
  });
});
