/**
 * What the live view gets of the data plane: a small picture of the lidar frame being sent
 * (../worker/preview-frame.ts makes it) and the live zones' states (../worker/zone-state-view.ts).
 */
export type ZoneStateName = 'clear' | 'triggered' | 'obstructed' | 'invalid';

export interface ZoneStateView {
  id: number;
  state: ZoneStateName;
  /** Returns in the zone in the last frame. */
  count: number;
}

export interface PreviewFrame {
  initId: number;
  columnsPerFrame: number;
  /** columnsPerFrame / PREVIEW_COLUMN_STEP. */
  width: number;
  /** Channels (rows). */
  height: number;
  /** Row-major, `y * width + x`; 0 = no return, else 1..255 on a square-root scale up to `rangeScaleMm`. */
  range: Uint8Array;
  rangeScaleMm: number;
  /** Row-major calibrated reflectivity of the first return. */
  reflectivity: Uint8Array;
  /** Lidar datagrams sent in this run so far: the page shows the stream is alive. */
  packetsSent: number;
  /** The live zones' states of the last zone packet sent; absent while no zone packet is sent. */
  zones?: ZoneStateView[];
}
