/**
 * The data plane's public entry: the emitter, its plans and counters, the packet encoders
 * the HAL, the core and the live view use. Replay has its own entry (udp/replay/index.ts), loaded lazily.
 */
export type { EmitterStats, LiveZonePlan, StreamStats, ZoneMonitorPlan } from './emitter-protocol.js';
export { type PlanIdentity, planStreams } from './host/plan-streams.js';
export type { ReplaySettings, StreamPlan } from './stream-plan.js';
export type { SceneObjectPlan } from './scene/scene-objects.js';
export { Emitter } from './host/emitter.js';
export { startWorkerModule } from './host/worker-file.js';
export type { PreviewFrame } from './worker/preview-frame.js';
export type { ZoneStateView } from './worker/zone-state-view.js';
export type { StreamAlertIds } from './worker/stream-alerts.js';
export type { StreamTotals } from './stream-totals.js';
export type { UdpFaultCount } from './worker/udp-fault-filter.js';
export { dataBindAddress, udpSourceAddress, udpSourceCandidates } from './host/udp-source-address.js';
