/**
 * What sensors a capture holds, without metadata: one entry per sending address with its packet counts,
 * ports, and what its lidar packets say of themselves (header kind, serial number, init_id, and the
 * profiles and pixel counts their size and layout fit). `lidar-sensor recording info` lists them, so a
 * user of a multi-sensor capture sees which metadata file belongs to which sender. Pure.
 */
import { IMU_PACKET_BYTES } from '../packets/imu-packet.js';
import { PACKET_TYPE, readPacketHeader } from '../packets/packet-header.js';
import { COLUMNS_PER_PACKET } from '../packets/lidar-profiles.js';
import { isZonePacket, sourcesOf } from './capture-sensors.js';
import { readLidarHeader } from './lidar-header.js';
import {
  measurementIdAt,
  pixelsOfPacket,
  recordedLayout,
  type RecordedLayout,
  type RecordedProfile,
} from './recorded-layout.js';
import { REPLAYABLE_PROFILES } from './recording.js';
import type { UdpDatagram } from './udp-datagrams.js';

export interface SurveyedSensor {
  address: string;
  lidarPackets: number;
  imuPackets: number;
  /** Zone packets of firmware 3.2's Zone Monitor. */
  zonePackets: number;
  /** Destination ports of its datagrams. */
  ports: number[];
  /** Size of most of its lidar packets, bytes. */
  lidarPacketBytes: number | null;
  serial: string | null;
  initId: number | null;
  /**
   * Profiles (with pixels per column and packet header) the packets fit; more than one where the size alone
   * cannot tell. `fusaHeader`: the FUSA header on a profile whose own header is STANDARD (firmware 3.2's header_type).
   */
  profiles: { profile: RecordedProfile; pixels: number; fusaHeader?: boolean }[];
}

const PIXEL_COUNTS = [16, 32, 64, 128];

/** Whether `b` reads as a packet of `layout` with `pixels`: header kind and consecutive measurement ids. */
function fits(b: Buffer, layout: RecordedLayout, pixels: number): boolean {
  if (layout.header !== 'LEGACY' && readPacketHeader(b, layout.header).packetType !== PACKET_TYPE.lidar) return false;
  // The reserved header bytes of each kind are zero.
  if (layout.header === 'STANDARD' && !(b[13] === 0 && b[14] === 0 && b[15] === 0)) return false;
  if (layout.header === 'FUSA' && !(b[9] === 0 && b[10] === 0)) return false;
  const first = measurementIdAt(b, layout, pixels, 0);
  for (let c = 1; c < COLUMNS_PER_PACKET; c++) if (measurementIdAt(b, layout, pixels, c) !== first + c) return false;
  return first % COLUMNS_PER_PACKET === 0;
}

function mostCommonSize(lidar: readonly UdpDatagram[]): number | null {
  const counts = new Map<number, number>();
  for (const d of lidar) counts.set(d.payload.length, (counts.get(d.payload.length) ?? 0) + 1);
  let best: number | null = null;
  for (const [size, n] of counts) if (best === null || n > (counts.get(best) ?? 0)) best = size;
  return best;
}

export function surveyCapture(datagrams: readonly UdpDatagram[]): SurveyedSensor[] {
  // Without metadata, a 48-byte datagram is an IMU packet, a zone packet says so in its header, and any
  // other one is a lidar candidate.
  const sources = sourcesOf(datagrams, (d) =>
    d.payload.length === IMU_PACKET_BYTES
      ? 'imu'
      : isZonePacket(d.payload, 'STANDARD') || isZonePacket(d.payload, 'FUSA')
        ? 'zone'
        : 'lidar',
  );
  return sources.map((s) => {
    const size = mostCommonSize(s.lidar);
    const sample = s.lidar.find((d) => d.payload.length === size)?.payload;
    const profiles: SurveyedSensor['profiles'] = [];
    const layouts: RecordedLayout[] = [];
    // Each profile with its own header first; the FUSA header (header_type, firmware 3.2) on the others only when
    // none fits so: a STANDARD packet of a small serial number, or a FUSA_RNG15_RFL8_NIR8_DUAL one, reads as that too.
    for (const fusaHeader of [false, true]) {
      for (const profile of REPLAYABLE_PROFILES) {
        const layout = recordedLayout(profile, fusaHeader && profile !== 'LEGACY' ? 'FUSA' : undefined);
        if (fusaHeader && layout === recordedLayout(profile)) continue;
        const pixels = sample ? pixelsOfPacket(layout, sample.length) : null;
        if (!sample || !pixels || !PIXEL_COUNTS.includes(pixels) || !fits(sample, layout, pixels)) continue;
        profiles.push(fusaHeader ? { profile, pixels, fusaHeader } : { profile, pixels });
        layouts.push(layout);
      }
      if (profiles.length) break;
    }
    const header = sample && layouts.length ? readLidarHeader(sample, layouts[0]) : null;
    return {
      address: s.address,
      lidarPackets: s.lidar.length,
      imuPackets: s.imu.length,
      zonePackets: s.zone.length,
      ports: [...new Set([...s.lidar, ...s.imu, ...s.zone].map((d) => d.dstPort))].sort((a, b) => a - b),
      lidarPacketBytes: size,
      serial: header?.serial != null ? String(header.serial) : null,
      initId: header?.initId ?? null,
      profiles,
    };
  });
}

/** One line per sensor, for `recording info`. */
export function describeSurvey(sensors: readonly SurveyedSensor[]): string {
  const lines = [`sensors in the capture: ${sensors.length}`];
  for (const s of sensors) {
    const profile = s.profiles.length
      ? s.profiles
          .map((p) => `${p.profile}${p.fusaHeader ? ' with the FUSA header' : ''} (${p.pixels} px)`)
          .join(' or ')
      : s.lidarPackets
        ? `unknown profile (${s.lidarPacketBytes}-byte packets)`
        : 'no lidar packets';
    const who = s.serial !== null ? `serial ${s.serial}, init_id ${s.initId}` : 'no serial in its packets';
    const zone = s.zonePackets ? `, ${s.zonePackets} zone` : '';
    lines.push(
      `  ${s.address}: ${who}; ${profile}; ${s.lidarPackets} lidar, ${s.imuPackets} IMU${zone} packets to port(s) ${s.ports.join(', ')}`,
    );
  }
  return lines.join('\n');
}
