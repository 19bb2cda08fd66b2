/**
 * Which of a capture's senders is the unit a recording's metadata describes, and the check that its packets
 * carry that unit's identity: a recording replays one sensor, whatever else the capture holds.
 */
import type { CaptureSource, PacketKind } from './capture-sensors.js';
import { readLidarHeader } from './lidar-header.js';
import { isLegacy, type RecordedLayout } from './recorded-layout.js';
import { RecordingError } from './recording-error.js';
import type { RecordedMetadata } from './recording-metadata.js';
import type { UdpDatagram } from './udp-datagrams.js';

/** A sender of the capture that is not the recording's sensor, as the recording reports it. */
export interface OtherSensor {
  address: string;
  lidarPackets: number;
  imuPackets: number;
}

/** What the identity check reads of a lidar packet. */
interface IdentifiedPacket {
  bytes: Buffer;
  wellFormed: boolean;
}

export interface SensorSelection {
  belongs(d: UdpDatagram, kind: PacketKind): boolean;
  others: OtherSensor[];
}

/**
 * The sensor of the metadata among the capture's sources: a capture of one sender is that sender (the
 * identity checks below then name any mismatch); of several, the sources whose lidar packets carry the
 * metadata's serial number and init_id (LEGACY packets carry none: the sources whose packets have the
 * metadata's size, which must then be one). IMU packets belong to a sensor by source address only.
 */
export function selectSensor(
  file: string,
  metadata: RecordedMetadata,
  layout: RecordedLayout,
  expectedBytes: number,
  sources: CaptureSource[],
): SensorSelection {
  if (sources.length <= 1) return { belongs: () => true, others: [] };
  const { prod_sn, initialization_id } = metadata.sensorInfo;
  const serial = /^[0-9]+$/.test(prod_sn) ? BigInt(prod_sn) : null;
  const isOurs = (b: Buffer) => {
    if (b.length !== expectedBytes) return false;
    if (isLegacy(layout)) return true;
    const h = readLidarHeader(b, layout);
    return (serial === null || h.serial === serial) && (initialization_id === 0 || h.initId === initialization_id);
  };
  const ours = sources.filter((s) => s.lidar.some((d) => isOurs(d.payload)));
  const listing = () => sources.map((s) => `${s.address} (${s.lidar.length} lidar, ${s.imu.length} IMU)`).join(', ');
  if (ours.length === 0) {
    throw new RecordingError(
      `${file}: none of the ${sources.length} senders in the capture sends packets of the metadata's unit ` +
        `(serial ${prod_sn}, initialization_id ${initialization_id}, ${metadata.dataFormat.udp_profile_lidar} ` +
        `packets of ${expectedBytes} bytes): ${listing()}`,
    );
  }
  if (isLegacy(layout) && ours.length > 1) {
    throw new RecordingError(
      `${file}: ${ours.length} senders send LEGACY packets of this size and LEGACY packets name no sensor: ${listing()}`,
    );
  }
  const addresses = new Set(ours.map((s) => s.address));
  return {
    belongs: (d, kind) =>
      addresses.has(d.srcAddress) && (kind !== 'lidar' || d.payload.length !== expectedBytes || isOurs(d.payload)),
    others: sources
      .filter((s) => !addresses.has(s.address))
      .map((s) => ({ address: s.address, lidarPackets: s.lidar.length, imuPackets: s.imu.length })),
  };
}

/** Packets must come from the unit the metadata describes (clients compare init_id and prod_sn). */
export function checkIdentity(
  file: string,
  metadata: RecordedMetadata,
  layout: RecordedLayout,
  lidar: readonly IdentifiedPacket[],
) {
  const formed = lidar.filter((p) => p.wellFormed);
  if (formed.length === 0 || isLegacy(layout)) return;
  const header = readLidarHeader(formed[0].bytes, layout);
  const { initialization_id, prod_sn } = metadata.sensorInfo;
  if (/^[0-9]+$/.test(prod_sn) && header.serial !== BigInt(prod_sn)) {
    throw new RecordingError(`${file}: packets carry serial number ${header.serial} but the metadata is of ${prod_sn}`);
  }
  if (initialization_id !== 0 && header.initId !== initialization_id) {
    throw new RecordingError(
      `${file}: packets carry initialization_id ${header.initId} but the metadata says ${initialization_id}`,
    );
  }
}
