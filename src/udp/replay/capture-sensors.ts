/**
 * Which sensor each datagram of a capture comes from, and which stream it belongs to. A capture of a multi-sensor rig holds several
 * units, often sending to the same ports (and lidar and IMU on one port): datagrams are grouped by the
 * capture's source address, and lidar packets also by the serial number and init_id in their header
 * where the profile has one (LEGACY has none). Pure.
 */
import type { HeaderType } from '../../model/index.js';
import { IMU_PACKET_BYTES } from '../packets/imu-packet.js';
import { readPacketHeader } from '../packets/packet-header.js';
import { ZONE_PACKET_BYTES, ZONE_PACKET_HEADER_BYTES, ZONE_PACKET_TYPE } from '../packets/zone-packet.js';
import { crcMatches } from './lidar-header.js';
import type { UdpDatagram } from './udp-datagrams.js';

export type PacketKind = 'lidar' | 'imu' | 'zone';

/**
 * A zone packet of firmware 3.2 (docs/udp-packets.md, Zone packets): its size and packet_type, read in the header
 * the recording's lidar packets have (header_type: a FUSA header's packet_type is one byte, an init_id follows).
 */
export const isZonePacket = (b: Buffer, header: HeaderType) =>
  b.length === ZONE_PACKET_BYTES && readPacketHeader(b, header).packetType === ZONE_PACKET_TYPE;

/**
 * What replay reads of a recorded zone packet: its frame id (null when too short to hold a header), whether it is
 * one, and (STANDARD header) whether its CRC matches; FUSA packets carry no CRC.
 */
export function readZonePacket(b: Buffer, header: HeaderType) {
  const wellFormed = isZonePacket(b, header);
  return {
    frameId: b.length >= ZONE_PACKET_HEADER_BYTES ? readPacketHeader(b, header).frameId : null,
    wellFormed,
    crcOk: header === 'STANDARD' ? wellFormed && crcMatches(b) : null,
  };
}

/**
 * Lidar or IMU by destination port; where both streams share one port (as multi-sensor rigs often
 * configure them), a 48-byte datagram is an IMU packet (lidar packets are far larger). Zone packets
 * (firmware 3.2) go to the recorded udp_port_zm (0: the recording has none); one on a port shared with
 * another stream is told apart by its size and packet_type.
 */
export function packetKind(
  dstPort: number,
  bytes: Buffer,
  ports: { lidar: number; imu: number; zone: number },
  header: HeaderType,
): PacketKind | null {
  const { lidar: lidarPort, imu: imuPort, zone: zonePort } = ports;
  if (zonePort !== 0 && dstPort === zonePort) {
    const shared = zonePort === lidarPort || zonePort === imuPort;
    if (!shared || isZonePacket(bytes, header)) return 'zone';
  }
  if (dstPort === lidarPort && !(lidarPort === imuPort && bytes.length === IMU_PACKET_BYTES)) return 'lidar';
  return dstPort === imuPort ? 'imu' : null;
}

/** One sending address of a capture and what its lidar packets say about who sent them. */
export interface CaptureSource {
  address: string;
  lidar: UdpDatagram[];
  imu: UdpDatagram[];
  zone: UdpDatagram[];
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
    if (!source) byAddress.set(d.srcAddress, (source = { address: d.srcAddress, lidar: [], imu: [], zone: [] }));
    source[kind].push(d);
  }
  return [...byAddress.values()];
}
