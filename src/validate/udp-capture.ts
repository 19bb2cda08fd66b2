/** The UDP sockets of the validator that the unit's lidar, IMU and zone streams are pointed at. */
import { createSocket, type Socket } from 'node:dgram';

export interface Received {
  data: Buffer;
  /** Arrival, ms on the validator's monotonic clock. */
  atMs: number;
  /** The datagram's source address, as `recvfrom` gives it (what the vendor SDK compares with the unit's). */
  from: string;
}

export const MAX_LIDAR_PACKETS = 8000;
const MAX_IMU_PACKETS = 2000;

export class UdpCapture {
  lidar: Received[] = [];
  imu: Received[] = [];
  /** Zone packets (firmware 3.2's Zone Monitor). */
  zones: Received[] = [];
  private recording = false;

  private constructor(
    private readonly lidarSocket: Socket,
    private readonly imuSocket: Socket,
    private readonly zoneSocket: Socket,
  ) {
    zoneSocket.on('message', (data, from) => this.keep(this.zones, data, from.address, MAX_IMU_PACKETS));
    lidarSocket.on('message', (data, from) => this.keep(this.lidar, data, from.address, MAX_LIDAR_PACKETS));
    imuSocket.on('message', (data, from) => this.keep(this.imu, data, from.address, MAX_IMU_PACKETS));
  }

  static async open(): Promise<UdpCapture> {
    const bind = () =>
      new Promise<Socket>((resolve, reject) => {
        const socket = createSocket('udp4');
        socket.once('error', reject);
        socket.bind(0, '0.0.0.0', () => {
          // Lidar bursts of 1280 datagrams/s of up to 33 kB each: a large buffer so the kernel drops nothing.
          try {
            socket.setRecvBufferSize(8 * 1024 * 1024);
          } catch {
            // The kernel caps it (net.core.rmem_max); the default still works at lower rates.
          }
          resolve(socket);
        });
      });
    return new UdpCapture(await bind(), await bind(), await bind());
  }

  get lidarPort(): number {
    return this.lidarSocket.address().port;
  }

  get imuPort(): number {
    return this.imuSocket.address().port;
  }

  get zonePort(): number {
    return this.zoneSocket.address().port;
  }

  /** Forgets what arrived so far and records from now on. */
  start(): void {
    this.lidar = [];
    this.imu = [];
    this.zones = [];
    this.recording = true;
  }

  stop(): void {
    this.recording = false;
  }

  close(): void {
    this.lidarSocket.close();
    this.imuSocket.close();
    this.zoneSocket.close();
  }

  private keep(list: Received[], data: Buffer, from: string, max: number): void {
    if (this.recording && list.length < max) list.push({ data, atMs: performance.now(), from });
  }
}
