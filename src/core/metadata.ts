/**
 * The metadata documents of the current initialization, computed once per `initialization_id`
 * (the active configuration only changes at a reinit, which always brings a new id) and served from
 * that cache until the next reinit. Only `sensor_info.status` is live: it changes within one
 * initialization (INITIALIZING → RUNNING).
 *
 * The cache is keyed on the active configuration object too: during a reinit the device core takes
 * the new id before the HAL has started the new configuration, and a request in that window must not
 * pin documents of the old configuration to the new id.
 */
import type { SensorConfig } from '../config/index.js';
import { conflict, type SensorIdentity, unavailable } from '../model/index.js';
import {
  beamIntrinsics,
  calibrationStatus,
  imuDataFormat,
  imuIntrinsics,
  lidarDataFormat,
  lidarIntrinsics,
  sensorInfo,
  type BeamIntrinsics,
  type CalibrationStatus,
  type ImuDataFormat,
  type ImuIntrinsics,
  type LidarDataFormat,
  type LidarIntrinsics,
  type Metadata,
  type SensorInfo,
} from './metadata-documents.js';
import type { SensorStatus } from './status.js';

/** What the documents are derived from: the device core's state at the time of a request. */
export interface MetadataSource {
  identity(): SensorIdentity;
  initializationId(): number;
  status(): SensorStatus;
  /** The active configuration; replaced as a whole (never mutated) when it changes. */
  config(): Readonly<SensorConfig>;
}

interface Derived {
  initializationId: number;
  activeConfig: Readonly<SensorConfig>;
  sensorInfoOf: Record<string, SensorInfo>;
  lidarDataFormat: LidarDataFormat;
  imuDataFormat: ImuDataFormat;
  beamIntrinsics: BeamIntrinsics;
  imuIntrinsics: ImuIntrinsics;
  lidarIntrinsics: LidarIntrinsics;
  calibrationStatus: CalibrationStatus;
  configParams: SensorConfig;
  /** The aggregate; only served while RUNNING, so its sensor_info is always the RUNNING one. */
  aggregate?: Metadata;
}

/**
 * Refuses what only a RUNNING sensor serves (docs/http-api.md, Errors that depend on the unit's state): 503 + Retry-After while the sensor
 * is initializing (clients poll and retry), 409 in any other state.
 */
export function requireRunning(status: SensorStatus, what: string): void {
  if (status === 'RUNNING') return;
  if (status === 'INITIALIZING')
    throw unavailable(`${what} is not available while the sensor is INITIALIZING; retry shortly`);
  throw conflict(`${what} is only available while the sensor is RUNNING; its status is ${status}`);
}

export class SensorMetadata {
  private derived: Derived | undefined;

  constructor(private readonly source: MetadataSource) {}

  sensorInfo(): SensorInfo {
    const d = this.current();
    const status = this.source.status();
    // One object per (initialization, status) pair: a handful per initialization at most.
    return (d.sensorInfoOf[status] ??= sensorInfo(this.source.identity(), status, d.initializationId));
  }

  lidarDataFormat(): LidarDataFormat {
    requireRunning(this.source.status(), 'lidar_data_format');
    return this.current().lidarDataFormat;
  }

  imuDataFormat(): ImuDataFormat {
    return this.current().imuDataFormat;
  }

  beamIntrinsics(): BeamIntrinsics {
    return this.current().beamIntrinsics;
  }

  imuIntrinsics(): ImuIntrinsics {
    return this.current().imuIntrinsics;
  }

  lidarIntrinsics(): LidarIntrinsics {
    return this.current().lidarIntrinsics;
  }

  calibrationStatus(): CalibrationStatus {
    return this.current().calibrationStatus;
  }

  /** The aggregate document: it holds lidar_data_format, so it follows the same RUNNING rule. */
  all(): Metadata {
    requireRunning(this.source.status(), 'sensor metadata');
    const d = this.current();
    return (d.aggregate ??= {
      beam_intrinsics: d.beamIntrinsics,
      calibration_status: d.calibrationStatus,
      config_params: d.configParams,
      imu_data_format: d.imuDataFormat,
      imu_intrinsics: d.imuIntrinsics,
      lidar_data_format: d.lidarDataFormat,
      lidar_intrinsics: d.lidarIntrinsics,
      sensor_info: this.sensorInfo(),
    });
  }

  private current(): Derived {
    const initializationId = this.source.initializationId();
    const identity = this.source.identity();
    const activeConfig = this.source.config();
    if (this.derived?.initializationId === initializationId && this.derived.activeConfig === activeConfig)
      return this.derived;
    const product = identity.product;
    const config = structuredClone(activeConfig) as SensorConfig;
    this.derived = {
      initializationId,
      activeConfig,
      sensorInfoOf: {},
      lidarDataFormat: lidarDataFormat(product, config),
      imuDataFormat: imuDataFormat(config),
      beamIntrinsics: beamIntrinsics(product),
      imuIntrinsics: imuIntrinsics(product),
      lidarIntrinsics: lidarIntrinsics(product),
      calibrationStatus: calibrationStatus(identity),
      configParams: config,
    };
    return this.derived;
  }
}
