/**
 * The catalogue of product models: the single source of truth for everything that depends on which
 * sensor this is (beam geometry, transforms, part numbers, T1 or not, lidar modes, range).
 *
 * Names: `OS-<line>-<channels>` for the standard models and `OS-<line>-<channels>-T1` for the
 * automotive-Ethernet variants. `prodLine` is always the `OS-<line>-<channels>` form, T1 or not,
 * because clients parse the beam count out of `sensor_info.prod_line`.
 *
 * The angle tables are generated from a handful of parameters per line (vertical field of view,
 * the four-row azimuth pattern of docs/usage.md, Product models) instead of being pasted: see beam-table.ts.
 */
import { LIDAR_MODES, type LidarMode } from './sensor-config.js';
import { altitudeTable, azimuthTable } from './beam-table.js';

export type ProductLine = 'OS-0' | 'OS-1' | 'OS-2';
export const CHANNEL_COUNTS = [32, 64, 128] as const;
export type ChannelCount = (typeof CHANNEL_COUNTS)[number];

export interface ProductModel {
  /** Catalogue name, the value of `--product`: "OS-1-128", or "OS-1-128-T1" for the automotive-Ethernet variant. */
  name: string;
  /** `sensor_info.prod_line`, "OS-1-128" form (also for T1 variants). */
  prodLine: string;
  /** `sensor_info.prod_pn`, "840-102145-D" form. */
  prodPn: string;
  line: ProductLine;
  /** `pixels_per_column`. */
  channels: ChannelCount;
  /** Degrees, top beam first; length `channels`. */
  beamAltitudeDeg: readonly number[];
  /** Degrees, length `channels`; repeats a four-row pattern. */
  beamAzimuthDeg: readonly number[];
  lidarOriginToBeamOriginMm: number;
  /** 4x4 row-major, 16 numbers. */
  beamToLidarTransform: readonly number[];
  /** 4x4 row-major, 16 numbers. */
  imuToSensorTransform: readonly number[];
  /** 4x4 row-major, 16 numbers. */
  lidarToSensorTransform: readonly number[];
  lidarModes: readonly LidarMode[];
  /** Automotive Ethernet (T1): the only models that accept `speed_override`. */
  automotiveEthernet: boolean;
  /** Typical maximum range on a 10 % target, metres (for the simulated scene). */
  maxRangeM: number;
}

interface LineParameters {
  /** Highest and lowest beam altitude, degrees. */
  altitudeTopDeg: number;
  altitudeBottomDeg: number;
  /** Azimuth offsets of rows 0..3, repeated down the column. */
  azimuthPatternDeg: readonly [number, number, number, number];
  lidarOriginToBeamOriginMm: number;
  /** z of the lidar frame origin above the sensor base, mm. */
  lidarToSensorZMm: number;
  /** Second digit group of the synthetic part numbers. */
  partFamily: number;
  maxRangeM: number;
}

// Figures of real units, as docs/usage.md (Product models) lists them (vertical field of view, azimuth pattern, beam origin offset).
const LINES: Record<ProductLine, LineParameters> = {
  'OS-0': {
    altitudeTopDeg: 45.2,
    altitudeBottomDeg: -45.1,
    azimuthPatternDeg: [10.82, 3.61, -3.6, -10.79],
    lidarOriginToBeamOriginMm: 27.116,
    lidarToSensorZMm: 36.18,
    partFamily: 1,
    maxRangeM: 50,
  },
  'OS-1': {
    altitudeTopDeg: 22.1,
    altitudeBottomDeg: -22.3,
    azimuthPatternDeg: [4.23, 1.41, -1.4, -4.16],
    lidarOriginToBeamOriginMm: 15.806,
    lidarToSensorZMm: 36.18,
    partFamily: 2,
    maxRangeM: 120,
  },
  'OS-2': {
    altitudeTopDeg: 11.05,
    altitudeBottomDeg: -11.3,
    azimuthPatternDeg: [2.11, 0.71, -0.7, -2.09],
    lidarOriginToBeamOriginMm: 13.762,
    lidarToSensorZMm: 38.195,
    partFamily: 3,
    maxRangeM: 240,
  },
};

/** Same IMU placement on every line (the IMU sits on the base board). */
const IMU_TO_SENSOR: readonly number[] = [1, 0, 0, 6.253, 0, 1, 0, -11.775, 0, 0, 1, 7.645, 0, 0, 0, 1];

function makeModel(line: ProductLine, channels: ChannelCount, automotiveEthernet: boolean): ProductModel {
  const p = LINES[line];
  const prodLine = `${line}-${channels}`;
  const channelCode = CHANNEL_COUNTS.indexOf(channels) + 1;
  return {
    name: automotiveEthernet ? `${prodLine}-T1` : prodLine,
    prodLine,
    prodPn: `840-10${p.partFamily}${channelCode}${automotiveEthernet ? '7' : '4'}5-D`,
    line,
    channels,
    beamAltitudeDeg: altitudeTable(channels, p.altitudeTopDeg, p.altitudeBottomDeg),
    beamAzimuthDeg: azimuthTable(channels, p.azimuthPatternDeg),
    lidarOriginToBeamOriginMm: p.lidarOriginToBeamOriginMm,
    beamToLidarTransform: [1, 0, 0, p.lidarOriginToBeamOriginMm, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1],
    imuToSensorTransform: IMU_TO_SENSOR,
    // The lidar frame is rotated 180° about z relative to the sensor frame (connector at -x).
    lidarToSensorTransform: [-1, 0, 0, 0, 0, -1, 0, 0, 0, 0, 1, p.lidarToSensorZMm, 0, 0, 0, 1],
    lidarModes: LIDAR_MODES,
    automotiveEthernet,
    maxRangeM: p.maxRangeM,
  };
}

export const PRODUCT_MODELS: readonly ProductModel[] = (['OS-0', 'OS-1', 'OS-2'] as const).flatMap((line) =>
  [false, true].flatMap((t1) => CHANNEL_COUNTS.map((channels) => makeModel(line, channels, t1))),
);

export const PRODUCT_NAMES: readonly string[] = PRODUCT_MODELS.map((m) => m.name);
export const DEFAULT_PRODUCT = 'OS-1-128';

const BY_NAME = new Map(PRODUCT_MODELS.map((m) => [m.name, m]));

/** Exact (case-sensitive) catalogue name, as every keyword of the interface. */
export function findProduct(name: string): ProductModel | undefined {
  return BY_NAME.get(name);
}
