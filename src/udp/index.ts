/**
 * The data plane's public entry: the emitter, its plans and counters, the packet encoders
 * the HAL, the core and the live view use. Replay has its own entry (udp/replay/index.ts), loaded lazily.
 */
export type { StreamAlertIds } from './contract/alert-ids.js';
export type { PreviewFrame, ZoneStateView } from './contract/preview.js';
export type { SceneObjectPlan } from './contract/scene-plan.js';
export type { ReplaySettings, StreamPlan } from './contract/stream-plan.js';
export type { EmitterStats, StreamStats, StreamTotals } from './contract/stream-totals.js';
export type { UdpFaultCount } from './contract/udp-fault-counts.js';
export type { LiveZonePlan, ZoneMonitorPlan } from './contract/zone-plan.js';
export { Emitter } from './main-thread/emitter.js';
export { type PlanIdentity, planStreams } from './main-thread/plan-streams.js';
export { dataBindAddress, udpSourceAddress, udpSourceCandidates } from './main-thread/udp-source-address.js';
export { startWorkerModule } from './main-thread/worker-file.js';
