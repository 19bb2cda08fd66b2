/**
 * What a recording of a firmware 3.2 unit says about its Zone Monitor: the live zone ids its zone packets
 * report (docs/udp-packets.md, Zone packets: a live slot has bit 0 of its first byte set and its zone id
 * in the second). The replaying unit serves them as its live_ids, so they match the packets it sends. Pure.
 */
import { ZONE_SLOTS, ZONE_STATE_BYTES, ZONE_STATES_OFFSET } from '../packets/zone-packet.js';
import type { Recording } from './recording.js';

/** The live zone ids of the recording's first well-formed zone packet, in slot order; null without one. */
export function recordedLiveZoneIds(recording: Pick<Recording, 'packets'>): number[] | null {
  const packet = recording.packets.find((p) => p.kind === 'zone' && p.wellFormed);
  if (!packet) return null;
  const ids: number[] = [];
  for (let slot = 0; slot < ZONE_SLOTS; slot++) {
    const o = ZONE_STATES_OFFSET + slot * ZONE_STATE_BYTES;
    if (packet.bytes[o] & 1) ids.push(packet.bytes[o + 1]);
  }
  return ids;
}
