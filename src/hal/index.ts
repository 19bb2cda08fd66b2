/**
 * The HAL's public entry: the interfaces of each part. The implementations have their own
 * entries: hal/sim/index.ts and hal/linux/index.ts (loaded lazily, only by a Linux unit).
 */
export { faultPort } from './faults.js';
export type {
  FirmwareBootFaults,
  HalFaultPort,
  LinkFaults,
  StreamFaults,
  TelemetryFaultInputs,
  TelemetryFaults,
  TimeFaults,
} from './faults.js';
export type { FirmwareHal } from './firmware.js';
export type { StreamsHal } from './streams.js';
export type { ZoneHal, ZoneWatcher } from './zones.js';
export type { NetworkFacts, NetworkHal, SpeedOverride } from './network.js';
export type { RebootReason } from './power.js';
export { DEFAULT_PTP_PROFILE, PTP_PROFILES, isPtpProfile } from './ptp-profiles.js';
export type { PtpProfile } from './ptp-profiles.js';
export { PHASE_LOCK_STATUSES } from './telemetry.js';
export type { TelemetryHal, TelemetryReading } from './telemetry.js';
export type { ChronyTracking, PtpDataSets, SystemClockReading, TimeHal, TimingInputs } from './time.js';
export {
  BigIntSchema,
  ChronyTrackingSchema,
  NmeaDecodingSchema,
  NmeaIoChecksSchema,
  PtpDataSetsSchema,
} from './time-documents.js';
export type { DeepReadonly } from './time-documents.js';
export { systemRealtimeNs } from './realtime-clock.js';
export { HAL_KINDS } from './types.js';
export type { Hal, HalKind } from './types.js';
