/**
 * What one initialization streams: the one plan of the data plane. The device core builds it from the active
 * configuration (../main-thread/plan-streams.ts), the HAL hands it on, and it crosses to the emitter worker as it is,
 * so it is plain structured-clone data.
 */
import type { FullScaleRange, GnssPlan, HeaderType, LidarProfile } from '../../model/index.js';
import type { StreamAlertIds } from './alert-ids.js';
import type { BeamGeometry, ReturnSettings } from './scene-plan.js';
import type { ZoneMonitorPlan } from './zone-plan.js';

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

/** A recording the emitter worker replays (../worker/replay-stream.ts) instead of the synthetic scene. */
export interface ReplaySourcePlan {
  file: string;
  metadataFile: string;
  rate: number;
  loop: boolean;
  startOffsetNs: number;
  /** Profile of the lidar packets sent: the recorded one sends them as recorded. */
  profile: LidarProfile | 'LEGACY';
  /**
   * Unix time (ms) of a timetable shared with other units replaying the same capture (`lidar-sensor fleet
   * --replay`): a start begins at the next instant `epoch + n × pass` (pass n of a loop), so every unit
   * sends at the recorded instants relative to the others. Undefined: the replay starts at once.
   */
  timetableEpochMs?: number;
  /** Active column window: columns outside it are blanked, packets wholly outside it not sent. */
  columnWindow: [number, number];
  /** header_type of the unit: packets re-encoded into another profile carry this header (undefined: the profile's own). */
  header?: HeaderType;
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
  /**
   * Zone Monitor's live zones, rendered for this plan's frame width (null: no zone set is active). A change
   * between initializations (a set applied, live_ids) reaches the running plan as a `zones` message.
   */
  liveZones: ZoneMonitorPlan | null;
  /** A recording replayed instead of the synthetic scene, to the lidar and IMU destinations (sim, `--replay`). */
  replay?: ReplaySettings;
}
