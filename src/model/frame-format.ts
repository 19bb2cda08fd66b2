/**
 * The frame format of a configuration on a product: frame width and rate of `lidar_mode`, the columns inside
 * `azimuth_window`, and the scene's grid. Resolved from the configuration wherever it is needed (the stream
 * plan, metadata), so no one re-parses the mode string.
 */
import { columnsPerFrame, columnWindow, frameRateHz, type ColumnWindow } from './lidar-geometry.js';
import type { ProductModel } from './products.js';
import type { SensorConfig } from './parameter-schemas.js';

export interface FrameFormat {
  product: ProductModel;
  /** `columns_per_frame` of `lidar_mode`. */
  columnsPerFrame: number;
  /** Rotation (= frame) rate of `lidar_mode`, Hz. */
  frameRateHz: number;
  /** Inclusive measurement ids inside `azimuth_window`. */
  columnWindow: ColumnWindow;
  /**
   * The finest frame width of the product, a multiple of every mode's: one cast of the scene on
   * this grid serves every lidar mode, so changing `lidar_mode` never re-casts.
   */
  sceneColumnsPerFrame: number;
}

export function resolveFrameFormat(
  product: ProductModel,
  config: Pick<SensorConfig, 'lidar_mode' | 'azimuth_window'>,
): FrameFormat {
  const cpf = columnsPerFrame(config.lidar_mode);
  return {
    product,
    columnsPerFrame: cpf,
    frameRateHz: frameRateHz(config.lidar_mode),
    columnWindow: columnWindow(config.azimuth_window, cpf),
    sceneColumnsPerFrame: product.lidarModes.map(columnsPerFrame).reduce(lcm, cpf),
  };
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
const lcm = (a: number, b: number) => (a / gcd(a, b)) * b;
