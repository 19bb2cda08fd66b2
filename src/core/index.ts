/**
 * The device core's public entry: the Sensor and the services and documents it owns. The
 * diagnostic dump (core/diagnostics/index.ts) and mDNS (core/discovery/index.ts) load lazily through their own.
 */
export { LogRing } from './diagnostics/log-ring.js';
export type { LogRingOptions } from './diagnostics/log-ring.js';
export { mdnsEnabled } from './discovery/mdns-mode.js';
export type { MdnsMode } from './discovery/mdns-mode.js';
export { DEFAULT_FIRMWARE_MAX_BYTES } from './firmware/firmware-manager.js';
export {
  BeamIntrinsicsSchema,
  CalibrationStatusSchema,
  ImuDataFormatSchema,
  ImuIntrinsicsSchema,
  LidarDataFormatSchema,
  LidarIntrinsicsSchema,
  MetadataSchema,
  SensorInfoSchema,
} from './metadata-documents.js';
export { SensorMetadata } from './metadata.js';
export type { CoreFaultControls } from './fault-controls.js';
export type { UploadFilter } from './firmware/firmware-manager.js';
export { Sensor } from './sensor.js';
export type { SensorServices } from './sensor.js';
export { STORAGE_CAUSES, StorageState } from './storage-state.js';
export type { RecordingBinding } from './sensor-types.js';
export { SENSOR_STATUSES } from './status.js';
export type { SensorStatus } from './status.js';
export { PHASE_LOCK_STATUSES } from './telemetry-monitor.js';
export { PTP_PROFILES, TimeService } from './time-service.js';
export type { PtpTime, SensorClocks, SensorTime } from './time-service.js';
export { PtpTimeSchema, SensorTimeSchema, SystemTimeSchema, TimeSchema } from './time-documents.js';
export { USER_DATA_MAX_BYTES, USER_DATA_POLICIES } from './user-data.js';
export { FirmwarePolicy, loadTrustStore, parseVersion } from './firmware/firmware-trust.js';
