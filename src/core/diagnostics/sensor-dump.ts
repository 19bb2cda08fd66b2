/**
 * What goes into the diagnostics dump of a sensor (GET /api/v1/diagnostics/dump), and its file name.
 * Each file is a snapshot taken from the device core while the archive is being written.
 * User data is left out on purpose: it is the user's content and may hold anything. The one exception
 * is a damaged database kept aside at start (`storage/`), copied as it is: it is the evidence of the
 * damage, and may hold the user data it held.
 */
import { readFileSync } from 'node:fs';
import type { Readable } from 'node:stream';
import type { AlertLog } from '../../alerts/index.js';
import { type SensorIdentity, utcIsoString } from '../../model/index.js';
import { createDumpArchive, type DumpSection } from './dump-archive.js';

/**
 * What the dump reads from the device core: read-only views only, so a dump can never change the
 * unit (the Sensor offers all of it).
 */
export interface DumpSource {
  readonly identity: SensorIdentity;
  readonly run: { readonly status: string; readonly initializationId: number };
  readonly halKind: string;
  readonly metadata: Readonly<Record<(typeof METADATA_SECTIONS)[number][1], () => unknown>>;
  readonly configs: { reported(view: 'active' | 'staged' | 'persisted'): unknown };
  readonly alerts: { snapshot(): ReturnType<AlertLog['snapshot']>; flags(): number };
  readonly telemetry: { read(): unknown };
  readonly time: { all(): unknown };
  readonly network: { network(): unknown };
  /** The firmware and what it accepts: trusted key fingerprints (--firmware-trust), minimum version. */
  readonly firmware: {
    readonly status: unknown;
    readonly policy: {
      readonly trustedKeys: readonly { fingerprint: string; file: string }[];
      readonly minVersion?: string;
    };
  };
  /** Damaged database files kept aside at start (src/store/store-recovery.ts): name and path. */
  damagedStoreFiles(): { name: string; path: string }[];
  /** Zone Monitor's stored set that the SDK could not read, set aside at start (src/core/zones/zone-monitor.ts). */
  readonly zones?: { setAsideZoneSet(): { zip: Uint8Array; problems: unknown; at: string } | undefined };
}

const METADATA_SECTIONS = [
  ['sensor_info', 'sensorInfo'],
  ['lidar_data_format', 'lidarDataFormat'],
  ['imu_data_format', 'imuDataFormat'],
  ['beam_intrinsics', 'beamIntrinsics'],
  ['imu_intrinsics', 'imuIntrinsics'],
  ['lidar_intrinsics', 'lidarIntrinsics'],
  ['calibration_status', 'calibrationStatus'],
] as const;

/** Where the recent log lines come from (src/core/diagnostics/log-ring.ts). */
export interface RecentLog {
  lines(): readonly string[];
}

export interface SensorDump {
  fileName: string;
  stream: Readable;
}

/** `diagnostics-<serial>-<UTC time>.tar.gz`, e.g. diagnostics-122201000123-20240426T041747Z.tar.gz. */
export function dumpFileName(serialNumber: string, at: Date): string {
  const stamp = utcIsoString(at.getTime())
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/[-:]/g, '');
  return `diagnostics-${serialNumber.replace(/[^A-Za-z0-9_-]/g, '_')}-${stamp}.tar.gz`;
}

/** Every metadata section the sensor can give now; the ones refused in this state hold the reason. */
function metadataSnapshot(sensor: DumpSource): Record<string, unknown> {
  return Object.fromEntries(
    METADATA_SECTIONS.map(([name, method]) => {
      try {
        return [name, sensor.metadata[method]()];
      } catch (error) {
        return [name, { unavailable: error instanceof Error ? error.message : String(error) }];
      }
    }),
  );
}

/** The zone set set aside at start, as it was stored, and why. */
function zoneSetAsideSections(sensor: DumpSource): DumpSection[] {
  const aside = sensor.zones?.setAsideZoneSet();
  if (!aside) return [];
  return [
    { file: 'zone_monitor/set-aside.zip', collect: () => Buffer.from(aside.zip) },
    { file: 'zone_monitor/set-aside.json', collect: () => ({ set_aside_at: aside.at, problems: aside.problems }) },
  ];
}

export function sensorDumpSections(sensor: DumpSource): DumpSection[] {
  return [
    { file: 'metadata.json', collect: () => metadataSnapshot(sensor) },
    { file: 'config/active.json', collect: () => sensor.configs.reported('active') },
    { file: 'config/staged.json', collect: () => sensor.configs.reported('staged') },
    { file: 'config/persisted.json', collect: () => sensor.configs.reported('persisted') },
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
    {
      file: 'firmware.json',
      collect: () => {
        const { trustedKeys, minVersion } = sensor.firmware.policy;
        return {
          ...(sensor.firmware.status as object),
          signatures_required: trustedKeys.length > 0,
          trusted_keys: trustedKeys.map((k) => ({ fingerprint: `sha256:${k.fingerprint}`, file: k.file })),
          min_version: minVersion ?? null,
        };
      },
    },
    ...zoneSetAsideSections(sensor),
    ...sensor
      .damagedStoreFiles()
      .map(({ name, path }) => ({ file: `storage/${name}`, collect: () => readFileSync(path) })),
  ];
}

export interface DumpOptions {
  /** Where a failure partway through the archive is logged (its client sees a cut stream). */
  log: { error(context: object, message: string): void };
  recentLog?: RecentLog;
  now?: Date;
}

export function createSensorDump(sensor: DumpSource, options: DumpOptions): SensorDump {
  const at = options.now ?? new Date();
  const identity = sensor.identity;
  const stream = createDumpArchive({
    sections: sensorDumpSections(sensor),
    logLines: options.recentLog ? () => options.recentLog!.lines() : undefined,
    manifest: {
      product: identity.product.name,
      prod_sn: identity.serialNumber,
      firmware: identity.firmware,
      hal: sensor.halKind,
      status: sensor.run.status,
      initialization_id: sensor.run.initializationId,
      node: process.version,
    },
    now: () => at,
    onError: (error) => options.log.error({ err: error }, 'diagnostics dump failed'),
  });
  return { fileName: dumpFileName(identity.serialNumber, at), stream };
}
