/**
 * What goes into the diagnostics dump of a sensor (GET /api/v1/diagnostics/dump), and its file name.
 * Each file is a snapshot taken from the device core while the archive is being written.
 * User data is left out on purpose: it is the user's content and may hold anything.
 */
import type { Readable } from 'node:stream';
import type { Sensor } from '../sensor/sensor.js';
import { createDumpArchive, type DumpSection } from './dump-archive.js';

/** Where the recent log lines come from (src/diagnostics/log-ring.ts). */
export interface RecentLog {
  lines(): readonly string[];
}

export interface SensorDump {
  fileName: string;
  stream: Readable;
}

/** `diagnostics-<serial>-<UTC time>.tar.gz`, e.g. diagnostics-122201000123-20240426T041747Z.tar.gz. */
export function dumpFileName(serialNumber: string, at: Date): string {
  const stamp = at.toISOString().replace(/\.\d{3}Z$/, 'Z').replace(/[-:]/g, '');
  return `diagnostics-${serialNumber.replace(/[^A-Za-z0-9_-]/g, '_')}-${stamp}.tar.gz`;
}

/** Every metadata section the sensor can give now; the ones refused in this state hold the reason. */
function metadataSnapshot(sensor: Sensor): Record<string, unknown> {
  const m = sensor.metadata;
  const sections: [string, () => unknown][] = [
    ['sensor_info', () => m.sensorInfo()],
    ['lidar_data_format', () => m.lidarDataFormat()],
    ['imu_data_format', () => m.imuDataFormat()],
    ['beam_intrinsics', () => m.beamIntrinsics()],
    ['imu_intrinsics', () => m.imuIntrinsics()],
    ['lidar_intrinsics', () => m.lidarIntrinsics()],
    ['calibration_status', () => m.calibrationStatus()],
  ];
  return Object.fromEntries(
    sections.map(([name, read]) => {
      try {
        return [name, read()];
      } catch (error) {
        return [name, { unavailable: error instanceof Error ? error.message : String(error) }];
      }
    }),
  );
}

export function sensorDumpSections(sensor: Sensor): DumpSection[] {
  return [
    { file: 'metadata.json', collect: () => metadataSnapshot(sensor) },
    { file: 'config/active.json', collect: () => sensor.config('active') },
    { file: 'config/staged.json', collect: () => sensor.config('staged') },
    { file: 'config/persisted.json', collect: () => sensor.config('persisted') },
    {
      file: 'alerts.json',
      collect: () => {
        const { active, log, nextCursor, overflowed } = sensor.alerts.snapshot();
        return { active, log, next_cursor: nextCursor, overflowed, alert_flags: sensor.alerts.flags() };
      },
    },
    { file: 'telemetry.json', collect: () => sensor.telemetry.read() },
    // GET /api/v1/time (ptp, sensor, system) and GET /api/v1/system/network, as a client would see them.
    { file: 'time.json', collect: () => sensor.time.all() },
    { file: 'network.json', collect: () => sensor.network.network() },
  ];
}

export function createSensorDump(sensor: Sensor, options: { recentLog?: RecentLog; now?: Date } = {}): SensorDump {
  const at = options.now ?? new Date();
  const identity = sensor.identity;
  const stream = createDumpArchive({
    sections: sensorDumpSections(sensor),
    logLines: options.recentLog ? () => options.recentLog!.lines() : undefined,
    manifest: {
      product: identity.product.name,
      prod_sn: identity.serialNumber,
      firmware: identity.firmware,
      hal: sensor.hal.kind,
      status: sensor.status,
      initialization_id: sensor.initializationId,
      node: process.version,
    },
    now: () => at,
    onError: (error) => sensor.log.error({ err: error }, 'diagnostics dump failed'),
  });
  return { fileName: dumpFileName(identity.serialNumber, at), stream };
}
