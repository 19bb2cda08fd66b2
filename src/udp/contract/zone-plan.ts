/**
 * Zone Monitor's live zones (firmware 3.2) as the data plane watches them: the device core renders them
 * (src/core/zones/) and they ride with the plan (stream-plan.ts, `liveZones`); the worker watches them per
 * frame (../worker/zone-watch.ts).
 */
/** One live zone as the data plane watches it (src/udp/worker/zone-watch.ts). */
export interface LiveZonePlan {
  /** The zone's id in its set. */
  id: number;
  /** trigger_type of zone packets: 1 OCCUPANCY, 2 VACANCY. */
  triggerType: 1 | 2;
  pointCount: number;
  frameCount: number;
  /**
   * The zone's near/far ranges (mm) at the rays `m * pixels + p` that cross it, for frames `columns` wide;
   * null when the zone has no images for this frame width (a ZRB set of another lidar_mode): the zone is
   * then reported with an error flag and never triggers.
   */
  images: { columns: number; rays: Uint32Array; nearMm: Uint32Array; farMm: Uint32Array } | null;
}

/** The live zones of the active zone set (firmware 3.2's Zone Monitor), in live_ids order. */
export interface ZoneMonitorPlan {
  /** SHA-256 of the active zone set zip: live_zoneset_hash of zone packets. */
  hash: Uint8Array;
  zones: LiveZonePlan[];
}
