/**
 * One sensor streaming to one receiver: the set-up of the data-plane, reinit and memory figures.
 */
import type { BenchContext } from './context.js';
import { headerLayout, nominalPacketRate, packetsPerFrame } from './packet-fields.js';
import { Receiver } from './receiver-client.js';
import { configureStream } from './sensor-api.js';
import { spawnSensor, type SensorProcess } from './sensor-process.js';

export const LIDAR = 'lidar';
const IMU = 'imu';
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

  /** Sends the stream to the receiver in this mode and profile; resolves at the first packet of the new init_id. */
  async configure(lidarMode: string, profile: string, recordJitter = true): Promise<void> {
    const ports = await this.receiver.open([
      {
        id: LIDAR,
        kind: 'lidar',
        layout: headerLayout(profile),
        packetsPerFrame: packetsPerFrame(lidarMode),
        periodMs: 1000 / nominalPacketRate(lidarMode),
        recordJitter,
      },
    ]);
    const previous = this.receiver.currentInitId(LIDAR);
    const sentAt = process.hrtime.bigint();
    await configureStream(this.sensor.baseUrl, {
      udp_dest: '127.0.0.1',
      udp_port_lidar: ports[LIDAR],
      udp_port_imu: ports[IMU],
      lidar_mode: lidarMode,
      udp_profile_lidar: profile,
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
