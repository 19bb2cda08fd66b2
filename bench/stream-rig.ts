/**
 * One sensor streaming to one receiver: the set-up of the data-plane, reinit and memory figures.
 */
import type { BenchContext } from './context.js';
import { headerLayout, imuPacketRate, nominalPacketRate, packetsPerFrame } from './packet-fields.js';
import { Receiver } from './receiver-client.js';
import { configureStream } from './sensor-api.js';
import { spawnSensor, type SensorProcess } from './sensor-process.js';

export const LIDAR = 'lidar';
const IMU = 'imu';
/** The IMU stream when it is counted (ACCEL32_GYRO32_NMEA): a port of its own, the sink's stays open. */
export const IMU_FRAMES = 'imu-frames';
/** How long a reinit may take before the data plane counts as not streaming at all. */
const FIRST_PACKET_TIMEOUT_MS = 10_000;

export class NoPacketsError extends Error {}

export class StreamRig {
  private constructor(
    readonly sensor: SensorProcess,
    readonly receiver: Receiver,
  ) {}

  static async start(ctx: BenchContext, host = '127.0.0.1', sensor?: SensorProcess): Promise<StreamRig> {
    const running = sensor ?? (await spawnSensor({ host, dataDir: ctx.dataDir('stream') }));
    try {
      const receiver = await Receiver.start([{ id: IMU, kind: 'sink' }]);
      return new StreamRig(running, receiver);
    } catch (error) {
      await running.stop();
      throw error;
    }
  }

  /**
   * Sends the stream to the receiver in this mode and profile; resolves at the first packet of the new init_id.
   * `imuPacketsPerFrame`: the IMU stream is ACCEL32_GYRO32_NMEA with that many packets per frame, counted as
   * IMU_FRAMES (a firmware 3.2 unit); otherwise LEGACY IMU packets go to a sink.
   */
  async configure(lidarMode: string, profile: string, recordJitter = true, imuPacketsPerFrame?: number): Promise<void> {
    const imuCounted = imuPacketsPerFrame !== undefined;
    const ports = await this.receiver.open([
      {
        id: LIDAR,
        kind: 'lidar',
        layout: headerLayout(profile),
        packetsPerFrame: packetsPerFrame(lidarMode),
        periodMs: 1000 / nominalPacketRate(lidarMode),
        recordJitter,
      },
      ...(imuCounted
        ? [
            {
              id: IMU_FRAMES,
              kind: 'imu-nmea' as const,
              layout: headerLayout(profile),
              packetsPerFrame: imuPacketsPerFrame,
              columnsPerFrame: Number(lidarMode.split('x')[0]),
              periodMs: 1000 / imuPacketRate(lidarMode, imuPacketsPerFrame),
              recordJitter,
            },
          ]
        : []),
    ]);
    const previous = this.receiver.currentInitId(LIDAR);
    const sentAt = process.hrtime.bigint();
    await configureStream(this.sensor.baseUrl, {
      udp_dest: '127.0.0.1',
      udp_port_lidar: ports[LIDAR],
      udp_port_imu: ports[imuCounted ? IMU_FRAMES : IMU],
      lidar_mode: lidarMode,
      udp_profile_lidar: profile,
      ...(imuCounted
        ? { udp_profile_imu: 'ACCEL32_GYRO32_NMEA', imu_packets_per_frame: imuPacketsPerFrame }
        : { udp_profile_imu: 'LEGACY' }),
    });
    try {
      await this.receiver.waitForInit(LIDAR, sentAt, FIRST_PACKET_TIMEOUT_MS, (id) => id !== previous);
    } catch {
      throw new NoPacketsError('no lidar packets: the data plane is not streaming');
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.receiver.close(), this.sensor.stop()]);
  }
}
