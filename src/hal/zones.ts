/**
 * Zone Monitor's part of the data path (firmware 3.2, docs/zone-monitor.md, A real unit): how the device
 * core hands the live zones to whatever watches them. The core renders every zone (it needs only the beam
 * angles and transforms of the metadata) into a ZoneMonitorPlan: the live zones in slot order, their
 * triggering rules and near/far images for the current frame width, and the active set's hash. At every
 * reinit they come with the run's plan (StreamPlan.liveZones, StreamsHal.apply); between reinits, when a set
 * is applied, when live_ids change or when images for the frame width are rendered, ZoneMonitor calls
 * setZones. The data path then counts each frame's returns inside each zone, applies the rules, sends one
 * zone packet per frame to udp_dest_zm:udp_port_zm and sets the ZONE16 bits of each pixel.
 */
import type { ZoneMonitorPlan } from '../udp/index.js';

/** What watches the zones on this unit, as the core reports it (log, page). */
export interface ZoneWatcher {
  /** Whether zone hardware (the FPGA's zone tables) counts the returns and sends the zone packets. */
  hardware: boolean;
  /** Whether the hardware renders zone meshes itself; false: it takes the core's rendered images. */
  rendersZones: boolean;
  /** One sentence for an operator: what watches the zones here. */
  detail: string;
}

export interface ZoneHal {
  readonly watcher: ZoneWatcher;
  /** The live zones from the next frame on, without a reinit; null: no zone set is active (the packets' slots stay empty). */
  setZones(zones: ZoneMonitorPlan | null): void;
}

/** The simulated unit: its emitter is its data path and watches the zones over the simulated frame. */
export const SIMULATED_ZONE_WATCHER: ZoneWatcher = {
  hardware: false,
  rendersZones: false,
  detail: 'the simulated data path watches the zones over the simulated frame',
};

/**
 * The project's device build (`--hal linux`): no zone hardware and no lidar driver yet; the simulated
 * emitter that stands in for the lidar stream counts the zones in software.
 */
export const NO_ZONE_HARDWARE: ZoneWatcher = {
  hardware: false,
  rendersZones: false,
  detail:
    'this unit has no zone hardware: the zone sets and live ids are stored and served, and the simulated ' +
    'data path that stands in for the lidar stream watches the zones in software',
};
