/** What scene.ts's cast hands the rest of the data plane: their echoes (the beams' geometry, BeamGeometry, is the plan's: ../contract/scene-plan.ts). */

/**
 * What the beams of one frame see, indexed by ray `m * pixels + p`: the first (nearest) echo of every
 * beam in dense arrays, the second in a sparse list. Only beams through the glass pane have two echoes
 * (a few percent of them), so a second dense echo per beam would be mostly zeros, in every data-plane
 * thread that holds the cast scene.
 */
export interface SceneReturns {
  columns: number;
  pixels: number;
  /** First echo: mm from the lidar origin as clients expect (`r` of the Geometry formula); 0 = no echo. */
  range: Uint32Array;
  /** First echo's calibrated reflectivity 0..255. */
  reflectivity: Uint8Array;
  /** First echo's photons at signal_multiplier 1. */
  signal: Float32Array;
  /** Ambient near-infrared. */
  nearIr: Uint16Array;
  /** Second echoes, farther than the first, sorted by ray. */
  second: SecondEchoes;
}

export interface SecondEchoes {
  ray: Uint32Array;
  range: Uint32Array;
  reflectivity: Uint8Array;
  signal: Float32Array;
}
