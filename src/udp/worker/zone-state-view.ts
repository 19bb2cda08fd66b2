/**
 * A live zone's state as the live view shows it, read from the zone state the unit's zone packet carries
 * (src/udp/packets/zone-packet.ts): invalid when the packet flags an error (no images for this frame width),
 * triggered when its trigger_status is set, obstructed when returns nearer than the zone hide part of it
 * (occlusion_count) and it is not triggered, clear otherwise.
 */
import type { ZoneStateName, ZoneStateView } from '../contract/preview.js';
import type { ZoneState } from '../packets/zone-packet.js';

export function zoneStateView(
  s: Pick<ZoneState, 'id' | 'errorFlags' | 'triggered' | 'occlusionCount' | 'count'>,
): ZoneStateView {
  const state: ZoneStateName =
    s.errorFlags !== 0 ? 'invalid' : s.triggered ? 'triggered' : s.occlusionCount > 0 ? 'obstructed' : 'clear';
  return { id: s.id, state, count: s.count };
}
