/**
 * What one initialization streams: the one plan of the data plane. The device core builds it from the active
 * configuration (host/plan-streams.ts), the HAL hands it on, and it crosses to the emitter worker as it is,
 * so it is plain structured-clone data.
 */
import type { FullScaleRange, GnssPlan, HeaderType, LidarProfile } from '../model/index.js';
import type { ReplaySourcePlan } from './replay/replay-stream.js';
import type { ReturnSettings } from './scene/lidar-image.js';
import type { BeamGeometry } from './scene/scene-returns.js';
import type { StreamAlertIds } from './worker/stream-alerts.js';

/** Where a stream's datagrams go, and the alerts its socket errors raise. */
export interface StreamDestination {
  host: string;
  port: number;
  alerts: StreamAlertIds;
  /** IP TTL of the datagrams when `host` is a multicast group (udp_multicast_ttl, udp_multicast_ttl_zm). */
  multicastTtl: number;
}

/** The lidar stream from the synthetic scene. */
export interface LidarStreamPart extends StreamDestination {
  columnsPerFrame: number;
  frameRateHz: number;
  /** The packet a frame starts with (lidar_frame_azimuth_offset): frames run on from it through the last and 0. */
  firstPacket: number;
  /**
   * Scene casting input. `geometry.columnsPerFrame` is the finest frame width of the product (a
   * multiple of every mode's), so one cast serves every lidar mode.
   */
  geometry: BeamGeometry;
  /** Identifies `geometry`: equal keys share one cast of the scene. */
  sceneKey: string;
  returns: ReturnSettings;
  /** Row-major 4x4, translation in mm: objects put into the scene are given in the sensor frame. */
  lidarToSensor: number[];
}

export interface ImuStreamPart extends StreamDestination {
  accelFsr: FullScaleRange;
  gyroFsr: FullScaleRange;
  /** ACCEL32_GYRO32_NMEA (firmware 3.2): packets on the lidar frames' grid; undefined for LEGACY (100 Hz). */
  frames?: {
    columnsPerFrame: number;
    frameRateHz: number;
    /** The column a frame starts with (the lidar frames' first packet's, lidar_frame_azimuth_offset's). */
    firstColumn: number;
    packetsPerFrame: number;
    measurementsPerPacket: number;
    header: HeaderType;
    /** The GNSS receiver on the NMEA input (multipurpose_io_mode INPUT_NMEA_UART); null: nothing on it. */
    gnss: GnssPlan | null;
  };
}

/** What a replaying unit sends: recording, rate, loop and offset (profile and window are the plan's). */
export type ReplaySettings = Omit<ReplaySourcePlan, 'profile' | 'columnWindow' | 'header'>;

export interface StreamPlan {
  initId: number;
  serialNumber: bigint;
  /** Local address to bind sockets to; undefined = any. */
  bindAddress: string | undefined;
  /** Sensor timestamp = process.hrtime.bigint() + timestampOffsetNs. */
  timestampOffsetNs: bigint;
  /** udp_profile_lidar: LEGACY only while replaying (the registry refuses it everywhere else). */
  profile: LidarProfile | 'LEGACY';
  /** Inclusive `[first, last]` measurement ids to send (azimuth_window). */
  columnWindow: [number, number];
  /** The lidar packets' header (header_type; always FUSA with FUSA_RNG15_RFL8_NIR8_DUAL). */
  header: HeaderType;
  /** null: the stream is off (with both off the plan sends nothing). */
  lidar: LidarStreamPart | null;
  imu: ImuStreamPart | null;
  /** Where zone packets go (udp_dest_zm:udp_port_zm); null: none are sent. */
  zones: StreamDestination | null;
  /** A recording replayed instead of the synthetic scene, to the lidar and IMU destinations (sim, `--replay`). */
  replay?: ReplaySettings;
}
