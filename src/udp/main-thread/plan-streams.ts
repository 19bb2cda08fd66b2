/**
 * The stream plan of an initialization, from the active configuration: which streams run, where they go, the
 * frame format, the scene and the alerts of each socket. Built once by the device core; nothing below it
 * reads the configuration again.
 */
import {
  ALERT_IDS,
  DEFAULT_GNSS,
  type GnssPlan,
  frameStartColumn,
  IMU_MEASUREMENTS_PER_PACKET,
  lidarHeaderType,
  type ProductModel,
  resolveFrameFormat,
  type SensorConfig,
} from '../../model/index.js';
import type { StreamAlertIds } from '../contract/alert-ids.js';
import type { StreamPlan } from '../contract/stream-plan.js';
import type { ZoneMonitorPlan } from '../contract/zone-plan.js';

const LIDAR_ALERTS: StreamAlertIds = {
  refused: ALERT_IDS.LIDAR_PORT_UNREACHABLE,
  sendFailed: ALERT_IDS.LIDAR_SEND_FAILED,
  socketClosed: ALERT_IDS.LIDAR_SOCKET_ERROR,
  unresolved: ALERT_IDS.LIDAR_DEST_UNRESOLVED,
  unreachable: ALERT_IDS.LIDAR_NETWORK_UNREACHABLE,
  openFailed: ALERT_IDS.LIDAR_SOCKET_OPEN_FAILED,
};

/** Real units have no alert ids of a zone packet socket of its own: its errors are the lidar stream's. */
const ZONE_ALERTS: StreamAlertIds = LIDAR_ALERTS;

const IMU_ALERTS: StreamAlertIds = {
  refused: ALERT_IDS.IMU_PORT_UNREACHABLE,
  sendFailed: ALERT_IDS.IMU_SEND_FAILED,
  socketClosed: ALERT_IDS.IMU_SOCKET_ERROR,
  unresolved: ALERT_IDS.IMU_DEST_UNRESOLVED,
  unreachable: ALERT_IDS.IMU_NETWORK_UNREACHABLE,
  // Real units have no UDP_CONNECT id for the IMU socket itself: an IMU socket that cannot be opened is a closed one.
  openFailed: ALERT_IDS.IMU_SOCKET_ERROR,
};

/** What an initialization is, besides its configuration. */
export interface PlanIdentity {
  initId: number;
  product: ProductModel;
  /** `sensor_info.prod_sn` as an integer (fits 40 bits). */
  serialNumber: bigint;
  /** Local address the sockets bind to (the HTTP listen address when it is a specific one). */
  bindAddress: string | undefined;
  /** Sensor timestamp = process.hrtime.bigint() + timestampOffsetNs (the clock `timestamp_mode` selects). */
  timestampOffsetNs: bigint;
  /** The GNSS receiver wired to the NMEA input (`--gnss`); its sentences arrive with multipurpose_io_mode INPUT_NMEA_UART. */
  gnss?: GnssPlan;
  /** Zone Monitor's live zones, rendered for this configuration's frame width (none when absent). */
  liveZones?: ZoneMonitorPlan | null;
}

/**
 * What a configuration streams: null outside NORMAL mode; in it, each stream only with a destination and a
 * port (a plan may send nothing: the unit still runs, as a slow start of fault injection shows).
 */
export function planStreams(c: Readonly<SensorConfig>, run: PlanIdentity): StreamPlan | null {
  if (c.operating_mode !== 'NORMAL') return null;
  const { product } = run;
  const { columnsPerFrame, frameRateHz, columnWindow, sceneColumnsPerFrame } = resolveFrameFormat(product, c);
  const lidarOn = c.udp_dest !== '' && c.udp_port_lidar !== 0;
  // A frame starts with the packet holding lidar_frame_azimuth_offset's column; the IMU frames start there too.
  const firstPacket = Math.floor(
    frameStartColumn(c.lidar_frame_azimuth_offset, columnsPerFrame) / c.columns_per_packet,
  );
  return {
    initId: run.initId,
    serialNumber: run.serialNumber,
    bindAddress: run.bindAddress,
    timestampOffsetNs: run.timestampOffsetNs,
    profile: c.udp_profile_lidar,
    columnWindow,
    header: lidarHeaderType(c.udp_profile_lidar, c.header_type),
    liveZones: run.liveZones ?? null,
    lidar: lidarOn
      ? {
          host: c.udp_dest,
          port: c.udp_port_lidar,
          alerts: LIDAR_ALERTS,
          multicastTtl: c.udp_multicast_ttl,
          columnsPerFrame,
          frameRateHz,
          firstPacket,
          geometry: {
            columnsPerFrame: sceneColumnsPerFrame,
            beamAltitudeDeg: [...product.beamAltitudeDeg],
            beamAzimuthDeg: [...product.beamAzimuthDeg],
            lidarOriginToBeamOriginMm: product.lidarOriginToBeamOriginMm,
            maxRangeMm: product.maxRangeM * 1000,
          },
          sceneKey: `${product.name}/${sceneColumnsPerFrame}`,
          returns: {
            returnOrder: c.return_order,
            minRangeMm: c.min_range_threshold_cm * 10,
            signalMultiplier: c.signal_multiplier,
          },
          lidarToSensor: [...product.lidarToSensorTransform],
        }
      : null,
    imu:
      c.udp_dest !== '' && c.udp_port_imu !== 0
        ? {
            host: c.udp_dest,
            port: c.udp_port_imu,
            alerts: IMU_ALERTS,
            multicastTtl: c.udp_multicast_ttl,
            accelFsr: c.accel_fsr,
            gyroFsr: c.gyro_fsr,
            ...(c.udp_profile_imu === 'ACCEL32_GYRO32_NMEA'
              ? {
                  frames: {
                    columnsPerFrame,
                    frameRateHz,
                    firstColumn: firstPacket * c.columns_per_packet,
                    packetsPerFrame: c.imu_packets_per_frame,
                    measurementsPerPacket: IMU_MEASUREMENTS_PER_PACKET.ACCEL32_GYRO32_NMEA,
                    header: lidarHeaderType(c.udp_profile_lidar, c.header_type),
                    gnss: c.multipurpose_io_mode === 'INPUT_NMEA_UART' ? (run.gnss ?? DEFAULT_GNSS) : null,
                  },
                }
              : {}),
          }
        : null,
    // Zone packets ride with the lidar stream.
    zones:
      lidarOn && c.udp_dest_zm !== '' && c.udp_port_zm !== 0
        ? { host: c.udp_dest_zm, port: c.udp_port_zm, alerts: ZONE_ALERTS, multicastTtl: c.udp_multicast_ttl_zm }
        : null,
  };
}
