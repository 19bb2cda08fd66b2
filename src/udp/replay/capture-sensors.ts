/**
 * Which sensor each datagram of a capture comes from. A capture of a multi-sensor rig holds several
 * units, often sending to the same ports (and lidar and IMU on one port): datagrams are grouped by the
 * capture's source address, and lidar packets also by the serial number and init_id in their header
 * where the profile has one (LEGACY has none). Pure.
 */
import { IMU_PACKET_BYTES } from '../packets/imu-packet.js';
import type { UdpDatagram } from './udp-datagrams.js';

export type PacketKind = 'lidar' | 'imu';

/**
 * Lidar or IMU by destination port; where both streams share one port (as multi-sensor rigs often
 * configure them), a 48-byte datagram is an IMU packet (lidar packets are far larger).
 */
export function packetKind(dstPort: number, bytes: number, lidarPort: number, imuPort: number): PacketKind | null {
  if (dstPort === lidarPort && !(lidarPort === imuPort && bytes === IMU_PACKET_BYTES)) return 'lidar';
  return dstPort === imuPort ? 'imu' : null;
}

/** One sending address of a capture and what its lidar packets say about who sent them. */
export interface CaptureSource {
  address: string;
  lidar: UdpDatagram[];
  imu: UdpDatagram[];
}

export function sourcesOf(
  datagrams: readonly UdpDatagram[],
  kindOf: (d: UdpDatagram) => PacketKind | null,
): CaptureSource[] {
  const byAddress = new Map<string, CaptureSource>();
  for (const d of datagrams) {
    const kind = kindOf(d);
    if (!kind) continue;
    let source = byAddress.get(d.srcAddress);
    if (!source) byAddress.set(d.srcAddress, (source = { address: d.srcAddress, lidar: [], imu: [] }));
    source[kind].push(d);
  }
  return [...byAddress.values()];
}
