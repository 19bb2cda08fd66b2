/**
 * The model's public entry: plain data and pure functions every other folder may use.
 */
export { ALERT_IDS, alertDefinition, isKnownAlertId, renderVerbose } from './alert-catalogue.js';
export type { AlertLevel } from './alert-catalogue.js';
export type { AlertSink } from './alert-sink.js';
export {
  ApiError,
  badRequest,
  conflict,
  invalidConfiguration,
  invalidZoneSet,
  notFound,
  payloadTooLarge,
  unavailable,
  storageCauseOf,
  storageProblem,
  systemFileProblem,
  unsupportedMediaType,
} from './errors.js';
export type { FieldError, ProblemType, StorageCause } from './errors.js';
export { faultFrameRateHz, HTTP_METHODS, STORAGE_FAULT_ERRORS, UDP_STREAMS } from './fault-rules.js';
export type {
  FaultRuleSpec,
  FaultRuleView,
  HttpAction,
  StorageFaultError,
  UdpAction,
  UdpFaultRule,
  UnitAction,
  Vector3,
} from './fault-rules.js';
export {
  FACTORY_FIRMWARE,
  FIRMWARE_LINES,
  hasZoneMonitor,
  buildRev,
  generateSerial,
  imageRev,
  makeIdentity,
  nextInitializationId,
  reportedImageRev,
  serialProblem,
  serialToBigInt,
} from './identity.js';
export type { FirmwareBuild, FirmwareLine, SensorIdentity } from './identity.js';
export { MAX_ZONE_TRIANGLES, boxTriangles, encodeBinaryStl, parseStl } from './zone-stl.js';
export type { Triangles } from './zone-stl.js';
export { renderZone } from './zone-render.js';
export type { RenderedZone, ZoneBeams } from './zone-render.js';
export { DEFAULT_M_PER_ZMBIN, decodeZrb, encodeZrb } from './zone-zrb.js';
export type { Zrb, ZrbTransforms } from './zone-zrb.js';
export {
  MAX_FRAME_COUNT,
  MAX_LIVE_ZONES,
  MAX_POINT_COUNT,
  MAX_ZONE_ID,
  MAX_ZONES,
  readZoneSetMetadata,
  zoneSetSchemaProblems,
} from './zone-set-rules.js';
export { ZoneSetMetadataSchema } from './zone-set-schema.js';
export type { ZoneMode, ZoneProblem, ZoneRule, ZoneSetSpec, ZoneSpec } from './zone-set-rules.js';
export { isTriggered, nextMetFrames } from './zone-trigger.js';
export type { ZoneTriggerRule } from './zone-trigger.js';
export { ImageVerifier } from './image-verifier.js';
export {
  ImageFormatError,
  MANIFEST_KEYS,
  buildImage,
  encodeImageHeader,
  generatedPayload,
  parseImageHeader,
} from './image-format.js';
export type { ImageHeader } from './image-format.js';
export { buildOfImageRev, parseImageRev } from './image-rev.js';
export {
  DEFAULT_OVERRIDE_PREFIX,
  formatIpv4,
  isLinkLocal,
  isLoopback,
  isLoopbackHost,
  linkLocalFromMac,
  parseCidr,
  parseIpv4,
  overrideTypeProblem,
  parseIpv4Override,
  prefixFromNetmask,
} from './ipv4.js';
export {
  columnWindow,
  columnsPerFrame,
  frameRateHz,
  frameStartColumn,
  isColumnInWindow,
  pixelShiftByRow,
} from './lidar-geometry.js';
export { clockIdentityFromMac, ipv6LinkLocalFromMac, macFromSerial } from './mac.js';
export { DEFAULT_PRODUCT, PRODUCT_NAMES, findProduct } from './products.js';
export type { ChannelCount, ProductLine, ProductModel } from './products.js';
export {
  BLOOM_REDUCTION_OPTIMIZATIONS,
  FULL_SCALE_RANGES,
  FULL_TURN_MDEG,
  HEADER_TYPES,
  IMU_MEASUREMENTS_PER_PACKET,
  IMU_PACKETS_PER_FRAME,
  IMU_PROFILES,
  LIDAR_MODES,
  LIDAR_PROFILES,
  MIN_RANGE_THRESHOLDS_CM,
  MULTIPURPOSE_IO_MODES,
  POLARITIES,
  RETURN_ORDERS,
  SIGNAL_MULTIPLIERS,
  TIMESTAMP_MODES,
  azimuthWindowWidthMdeg,
  lidarHeaderType,
  maxAzimuthWidthMdeg,
} from './sensor-config.js';
export type {
  FullScaleRange,
  HeaderType,
  ImuProfile,
  LidarMode,
  LidarProfile,
  MultipurposeIoMode,
  OperatingMode,
  Polarity,
  ReturnOrder,
  TimestampMode,
} from './sensor-config.js';
export {
  CHANNEL_BLOCKS,
  LEGACY_CHANNEL_BLOCK,
  channelBlockTableMarkdown,
  hasField,
} from './lidar-field-tables.js';
export type { ChannelBlockTable, ChannelField, FieldSpec } from './lidar-field-tables.js';
export { DEFAULT_GNSS, parseGnssPosition } from './gnss-position.js';
export type { GnssPlan } from './gnss-position.js';
export { PARAMETER_SCHEMAS } from './parameter-schemas.js';
export type { ParameterName, SensorConfig } from './parameter-schemas.js';
export {
  DEFAULT_MAX_BOOT_ATTEMPTS,
  SLOT_NAMES,
  abandonTrial,
  commitPending,
  factoryState,
  install,
  installProblem,
  installTarget,
  markHealthy,
  otherSlot,
  planBoot,
  stateProblem,
} from './slot-state.js';
export type { BootKind, SlotImage, SlotName, SlotState } from './slot-state.js';
export { ALERT_FLAG_ACTIVE, alertFlags } from './alert-flags.js';
export { resolveFrameFormat } from './frame-format.js';
export type { FrameFormat } from './frame-format.js';
export { MAX_FIELD_ERRORS, quote, shorten } from './util/bounded-text.js';
export { ByteSlab } from './util/byte-slab.js';
export { isPromise } from './util/maybe-promise.js';
export type { MaybePromise } from './util/maybe-promise.js';
export { TtlCache } from './util/ttl-cache.js';
export { httpDate, utcIsoString } from './util/utc-time.js';
export {
  type GroupValues,
  helpLine,
  helpLines,
  LIST_SEPARATOR,
  LOG_LEVELS,
  markdownTable,
  nameOf,
  option,
  type OptionDef,
  type OptionKind,
  type OptionParser,
  type OptionTable,
  type OptionTexts,
  type OptionValues,
  parseOptionTexts,
  parsers,
  readOptionTexts,
  UsageError,
} from './util/option-kit.js';
export type { ArrivedHeader } from './image-format.js';
export { isEd25519, keyFingerprint, verifyImageHeader } from './image-signature.js';
export { encodeImagePrefix } from './image-format.js';
export { parseAddressList } from './address-list.js';
export type { AddressList } from './address-list.js';
export { forbidden } from './errors.js';
export { decodeFactoryData, encodeFactoryData, factoryDataFor } from './factory-data.js';
export type { FactoryData } from './factory-data.js';
export { REPLAY_EXTENSION } from './replay-announcement.js';
export type { ReplayAnnouncement } from './replay-announcement.js';
