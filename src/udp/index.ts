/**
 * The data plane's public entry: the emitter, its plans and counters, the packet encoders
 * the HAL, the core and the live view use. Replay has its own entry (udp/replay/index.ts), loaded lazily.
 */
export type {
  EmitterPlan,
  EmitterStats,
  ImuStreamPlan,
  LidarStreamPlan,
  LiveZonePlan,
  StreamStats,
  ZoneMonitorPlan,
} from './emitter-protocol.js';
export type { SceneObjectPlan } from './scene-objects.js';
export { Emitter } from './emitter.js';
export type { PreviewFrame } from './preview-frame.js';
export type { StreamAlertIds } from './stream-alerts.js';
export type { StreamTotals } from './stream-totals.js';
export type { UdpFaultCount } from './udp-fault-filter.js';
export { dataBindAddress, udpSourceAddress, udpSourceCandidates } from './udp-source-address.js';
