/**
 * The metadata as read: each member of GET /api/v1/sensor/metadata equals its own endpoint, and the
 * documents agree with the configuration and with themselves (lidar_data_format against lidar_mode and
 * azimuth_window, one beam angle per channel, the packets' field widths for the ids, transform sizes).
 */
import { type CheckRun, expectThat, type NamedCheck, show } from './check-run.js';
import { lidarModeShape, METADATA_MEMBERS } from './spec-rules.js';
import type { Json, UnitClient } from './unit-client.js';

export async function metadataChecks(run: CheckRun, client: UnitClient): Promise<void> {
  const metadata = await run.readOrSkip('metadata', 'metadata consistency checks', () =>
    client.readJson('/api/v1/sensor/metadata'),
  );
  if (metadata === undefined) return;
  await memberChecks(run, client, metadata);
  const info = metadata.sensor_info as Json;
  const format = metadata.lidar_data_format as Json;
  const config = metadata.config_params as Json;
  const checks = [
    ...sensorInfoChecks(info),
    ...formatChecks(format, config),
    ...intrinsicsChecks(metadata, format?.pixels_per_column as number),
  ];
  for (const [id, title, body] of checks) await run.check(`metadata.${id}`, title, body);
  await run.check('metadata.imu-format', 'imu_data_format equals config accel_fsr and gyro_fsr', async () => {
    const imu = await client.readJson('/api/v1/sensor/metadata/imu_data_format');
    expectThat(
      imu.accel_fsr === config.accel_fsr && imu.gyro_fsr === config.gyro_fsr,
      `${show(imu)} vs config ${config.accel_fsr}/${config.gyro_fsr}`,
    );
  });
  await run.check(
    'metadata.firmware',
    'sensor_info.image_rev names the running firmware (GET /api/v1/system/firmware fw)',
    async () => {
      const firmware = await client.readJson('/api/v1/system/firmware');
      expectThat(firmware.fw === info.image_rev, `fw ${show(firmware.fw)} ≠ image_rev ${show(info.image_rev)}`);
    },
  );
}

async function memberChecks(run: CheckRun, client: UnitClient, metadata: Json): Promise<void> {
  for (const member of METADATA_MEMBERS) {
    const path = member === 'config_params' ? '/api/v1/sensor/config' : `/api/v1/sensor/metadata/${member}`;
    await run.check(`metadata.${member}.same`, `metadata.${member} equals GET ${path}`, async () => {
      const single = await client.readJson(path);
      expectThat(
        JSON.stringify(single) === JSON.stringify(metadata[member]),
        `${show(metadata[member], 60)} ≠ ${show(single, 60)}`,
      );
    });
  }
}

function sensorInfoChecks(info: Json): NamedCheck[] {
  return [
    [
      'sensor-info.status',
      'sensor_info.status is RUNNING',
      () => expectThat(info.status === 'RUNNING', `status ${show(info.status)}`),
    ],
    [
      'sensor-info.init-id',
      "sensor_info.initialization_id is an integer 0..2^24-1 (it is the packets' u24 init_id)",
      () =>
        expectThat(
          Number.isInteger(info.initialization_id) &&
            (info.initialization_id as number) >= 0 &&
            (info.initialization_id as number) < 2 ** 24,
          show(info.initialization_id),
        ),
    ],
    [
      'sensor-info.prod-sn',
      "sensor_info.prod_sn is a decimal serial number that fits the packets' u40",
      () => expectThat(/^\d{1,13}$/.test(String(info.prod_sn)) && Number(info.prod_sn) < 2 ** 40, show(info.prod_sn)),
    ],
  ];
}

/** lidar_data_format against the configuration it was derived from. */
function formatChecks(format: Json, config: Json): NamedCheck[] {
  const shape = lidarModeShape(String(config?.lidar_mode));
  const pixels = format?.pixels_per_column as number;
  const equalsConfig = (id: string, member: string): NamedCheck => [
    id,
    `lidar_data_format.${member} equals config ${member}`,
    () => expectThat(format[member] === config[member], `${show(format[member])} ≠ ${show(config[member])}`),
  ];
  return [
    [
      'format.columns-per-frame',
      'lidar_data_format.columns_per_frame matches config lidar_mode',
      () =>
        expectThat(
          shape !== undefined && format.columns_per_frame === shape.columns,
          `${show(format.columns_per_frame)} for lidar_mode ${show(config.lidar_mode)}`,
        ),
    ],
    equalsConfig('format.columns-per-packet', 'columns_per_packet'),
    equalsConfig('format.profile-lidar', 'udp_profile_lidar'),
    equalsConfig('format.profile-imu', 'udp_profile_imu'),
    [
      'format.column-window',
      'lidar_data_format.column_window lies in 0..columns_per_frame-1 (the whole frame for a full azimuth_window)',
      () => {
        const [first, last] = format.column_window as number[];
        const width = format.columns_per_frame as number;
        expectThat(
          Number.isInteger(first) && Number.isInteger(last) && first >= 0 && last < width,
          `${show(format.column_window)} outside 0..${width - 1}`,
        );
        const [lo, hi] = config.azimuth_window as number[];
        if (lo === 0 && hi === 360000)
          expectThat(first === 0 && last === width - 1, `${show(format.column_window)} for a full azimuth window`);
      },
    ],
    [
      'format.pixel-shift',
      'lidar_data_format.pixel_shift_by_row has one integer per channel',
      () =>
        expectThat(
          Array.isArray(format.pixel_shift_by_row) &&
            format.pixel_shift_by_row.length === pixels &&
            format.pixel_shift_by_row.every(Number.isInteger),
          `${(format.pixel_shift_by_row as unknown[])?.length} entries for ${pixels} channels`,
        ),
    ],
  ];
}

/** Beam, IMU and lidar intrinsics and the calibration status: sizes and ranges. */
function intrinsicsChecks(metadata: Json, pixels: number): NamedCheck[] {
  const beams = metadata.beam_intrinsics as Json;
  const onePerChannel = (id: string, member: string): NamedCheck => [
    id,
    `beam_intrinsics.${member} has pixels_per_column numbers`,
    () => {
      const angles = beams[member];
      expectThat(
        Array.isArray(angles) && angles.length === pixels,
        `${(angles as unknown[])?.length} for ${pixels} channels`,
      );
    },
  ];
  const isTransform = (id: string, document: string, member: string): NamedCheck => [
    id,
    `${document}.${member} is 16 numbers`,
    () => expectThat(isMatrix((metadata[document] as Json)[member]), 'not 16 numbers'),
  ];
  return [
    onePerChannel('beams.altitudes', 'beam_altitude_angles'),
    onePerChannel('beams.azimuths', 'beam_azimuth_angles'),
    [
      'beams.altitude-range',
      'beam altitude angles lie within ±90°',
      () =>
        expectThat(
          (beams.beam_altitude_angles as number[]).every((a) => Math.abs(a) <= 90),
          'an angle beyond ±90°',
        ),
    ],
    [
      'beams.transform',
      'beam_intrinsics.beam_to_lidar_transform is 16 numbers',
      () => expectThat(isMatrix(beams.beam_to_lidar_transform), show(beams.beam_to_lidar_transform, 60)),
    ],
    isTransform('imu.transform', 'imu_intrinsics', 'imu_to_sensor_transform'),
    isTransform('lidar.transform', 'lidar_intrinsics', 'lidar_to_sensor_transform'),
    [
      'calibration.timestamp',
      'calibration_status.reflectivity: valid is a boolean, timestamp YYYY-MM-DDThh:mm:ss without zone',
      () => {
        const reflectivity = (metadata.calibration_status as Json).reflectivity as Json;
        expectThat(typeof reflectivity.valid === 'boolean', `valid ${show(reflectivity.valid)}`);
        expectThat(
          /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/.test(String(reflectivity.timestamp)),
          `timestamp ${show(reflectivity.timestamp)}`,
        );
      },
    ],
  ];
}

function isMatrix(value: unknown): boolean {
  return Array.isArray(value) && value.length === 16 && value.every((n) => typeof n === 'number');
}
