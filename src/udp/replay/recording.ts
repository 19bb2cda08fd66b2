/**
 * A recording ready to replay: the capture file read, datagrams reassembled and sorted into lidar, IMU
 * and zone packets (firmware 3.2) by the recorded ports, checked against the metadata, and its faults (gaps, partial frames,
 * corrupt or truncated packets, packets of other ports) counted so they can be reported. Loading
 * refuses, with one line naming the problem, a file that is no capture or whose packets do not fit
 * its metadata. Its parts: which sender is the sensor (recording-sensor.ts), the frames counted
 * (recording-frames.ts), the faults reported (recording-faults.ts).
 */
import { readFileSync } from 'node:fs';
import { frameRateHz, LIDAR_MODES, LIDAR_PROFILES, type LidarMode } from '../../model/index.js';
import { IMU_PACKET_BYTES } from '../packets/imu-packet.js';
import { COLUMNS_PER_PACKET } from '../packets/lidar-profiles.js';
import { CaptureFormatError, readCaptureFile } from './capture-file.js';
import { packetKind, readZonePacket, sourcesOf, type PacketKind } from './capture-sensors.js';
import { crcMatches, frameIdModulus, readLidarHeader, streamHeader } from './lidar-header.js';
import { recordedLayout, recordedPacketBytes, type RecordedLayout, type RecordedProfile } from './recorded-layout.js';
import { RecordingError } from './recording-error.js';
import { parseRecordingMetadata, type RecordedMetadata } from './recording-metadata.js';
import { checkIdentity, type OtherSensor, type SensorSelection, selectSensor } from './recording-sensor.js';
import { checkColumns, frameSpan, frameStats } from './recording-frames.js';
import { extractUdpDatagrams, type UdpDatagram } from './udp-datagrams.js';

/** Profiles a replay sends: the current ones (firmware 3.2's ZONE16 among them) and LEGACY (firmware 2.x). */
export const REPLAYABLE_PROFILES: readonly RecordedProfile[] = [...LIDAR_PROFILES, 'LEGACY'];

export interface RecordedPacket {
  kind: PacketKind;
  /** Capture time since the recording's first replayed packet, ns. */
  timeNs: number;
  bytes: Buffer;
  /** Lidar and zone packets: frame id of the header (null when the packet is too short to hold one). */
  frameId: number | null;
  /** Lidar: the packet has the profile's size; IMU: 48 bytes; zone: a zone packet's size and packet_type. */
  wellFormed: boolean;
  /** STANDARD lidar and zone packets: whether the recorded CRC matches; null where there is none (FUSA, IMU). */
  crcOk: boolean | null;
}

export interface RecordingStats {
  format: 'pcap' | 'pcapng';
  captureFrames: number;
  /** IP fragments of fragmented datagrams. */
  fragments: number;
  incompleteDatagrams: number;
  lidarPackets: number;
  imuPackets: number;
  /** Zone packets (firmware 3.2's Zone Monitor), to the recorded udp_port_zm. */
  zonePackets: number;
  /** UDP datagrams to ports other than the recorded lidar, IMU and zone ports (not replayed). */
  otherPortPackets: number;
  /** Lidar and IMU datagrams of the capture's other sensors (not replayed). */
  otherSensorPackets: number;
  /** Frames seen (distinct runs of one frame id), those with every packet of the column window, the rest. */
  frames: number;
  completeFrames: number;
  partialFrames: number;
  /** Frame ids skipped between consecutive frames. */
  missingFrames: number;
  /** Lidar packets of the wrong size (truncated or corrupt) and STANDARD packets whose CRC does not match. */
  malformedPackets: number;
  badCrcPackets: number;
  durationNs: number;
  truncatedFile: boolean;
}

export interface Recording {
  file: string;
  metadataFile: string;
  metadata: RecordedMetadata;
  profile: RecordedProfile;
  layout: RecordedLayout;
  pixels: number;
  columnsPerFrame: number;
  lidarPort: number;
  imuPort: number;
  /** The recorded udp_port_zm; 0 where the metadata names none (firmware before 3.2). */
  zonePort: number;
  /** Lidar, IMU and zone packets in capture order. */
  packets: RecordedPacket[];
  stats: RecordingStats;
  /**
   * The capture's span plus one typical packet interval, ns: the pass of a loop's send timetable where frames do not
   * set it (a capture of several sensors, whose units loop together; a recording without frames).
   */
  passNs: number;
  /** Frame ids one pass spans (last - first + 1, modulo the id's width), of the lidar packets (of the zone packets
   * where there are none); 0 without either. */
  framesPerPass: number;
  /** One frame of the recorded lidar_mode (`1024x10`: 100 ms), ns; null where the metadata names no lidar_mode. */
  framePeriodNs: number | null;
  /** The capture's other sensors (source addresses with their packets), which this replay ignores. */
  otherSensors: OtherSensor[];
}

/** `FILE.pcap` → `FILE.json`. */
export function defaultMetadataPath(captureFile: string): string {
  return `${captureFile.replace(/\.(pcapng|pcap)$/i, '')}.json`;
}

function readFile(path: string, what: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new RecordingError(
      `cannot read ${what} ${path}: ${code === 'ENOENT' ? 'no such file' : ((error as Error).message ?? code)}`,
    );
  }
}

const portOf = (config: Record<string, unknown>, name: string, fallback: number) => {
  const v = config[name];
  return typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : fallback;
};

/** A capture file's UDP datagrams; RecordingError for a file that is no capture or ends inside a record. */
export function readCaptureDatagrams(file: string): {
  capture: ReturnType<typeof readCaptureFile>;
  extraction: ReturnType<typeof extractUdpDatagrams>;
} {
  let capture;
  try {
    capture = readCaptureFile(readFile(file, 'recording'));
  } catch (error) {
    if (error instanceof CaptureFormatError) throw new RecordingError(`${file}: ${error.message}`);
    throw error;
  }
  if (capture.truncated) {
    throw new RecordingError(
      `${file}: truncated ${capture.format} file: it ends inside record ${capture.frames.length + 1}`,
    );
  }
  return { capture, extraction: extractUdpDatagrams(capture.frames) };
}

/** The metadata's lidar format, if this project can replay it: the profile, its layout and the pixels per column. */
function replayableFormat(file: string, metadata: RecordedMetadata) {
  const format = metadata.dataFormat;
  const profileName = format.udp_profile_lidar;
  if (!(REPLAYABLE_PROFILES as readonly string[]).includes(profileName)) {
    throw new RecordingError(
      `${file}: lidar profile ${profileName} of the metadata cannot be replayed ` +
        `(supported: ${REPLAYABLE_PROFILES.join(', ')})`,
    );
  }
  const profile = profileName as RecordedProfile;
  const pixels = format.pixels_per_column;
  if (format.columns_per_packet !== COLUMNS_PER_PACKET) {
    throw new RecordingError(
      `${file}: columns_per_packet ${format.columns_per_packet} cannot be replayed (only ${COLUMNS_PER_PACKET})`,
    );
  }
  if (metadata.beamIntrinsics.beam_altitude_angles.length !== pixels) {
    throw new RecordingError(
      `${file}: metadata has ${metadata.beamIntrinsics.beam_altitude_angles.length} beam angles ` +
        `but ${pixels} pixels per column`,
    );
  }
  return { profile, layout: recordedLayout(profile, format.header_type), pixels };
}

/** One recorded datagram as the replay sends it: its time from `t0`, its frame id, and whether it is whole. */
function recordedPacket(
  kind: PacketKind,
  d: UdpDatagram,
  t0: bigint,
  layout: RecordedLayout,
  expectedBytes: number,
): RecordedPacket {
  const bytes = d.payload;
  const timeNs = Number(d.timeNs - t0);
  if (kind === 'imu')
    return { kind, timeNs, bytes, frameId: null, wellFormed: bytes.length === IMU_PACKET_BYTES, crcOk: null };
  // Zone packets carry the header of the lidar packets (header_type).
  if (kind === 'zone') return { kind, timeNs, bytes, ...readZonePacket(bytes, streamHeader(layout)) };
  const wellFormed = bytes.length === expectedBytes;
  const frameId = bytes.length >= 32 + 12 ? readLidarHeader(bytes, layout).frameId : null;
  const crcOk = wellFormed && layout.header === 'STANDARD' ? crcMatches(bytes) : null;
  return { kind, timeNs, bytes, frameId, wellFormed, crcOk };
}

/**
 * The replayed sensor's packets in time order, and the capture's time span. Times count from the capture's
 * first lidar, IMU or zone datagram of any sensor: units replaying the other sensors of the capture keep the
 * recorded timing relative to this one.
 */
function collectPackets(
  datagrams: readonly UdpDatagram[],
  kindOf: (d: UdpDatagram) => PacketKind | null,
  sensors: SensorSelection,
  layout: RecordedLayout,
  expectedBytes: number,
) {
  let otherPortPackets = 0;
  let otherSensorPackets = 0;
  let t0: bigint | null = null;
  let tLast: bigint | null = null;
  let onPorts = 0;
  for (const d of datagrams) {
    if (!kindOf(d)) {
      otherPortPackets++;
      continue;
    }
    if (t0 === null || d.timeNs < t0) t0 = d.timeNs;
    if (tLast === null || d.timeNs > tLast) tLast = d.timeNs;
    onPorts++;
  }
  const packets: RecordedPacket[] = [];
  for (const d of datagrams) {
    const kind = kindOf(d);
    if (!kind || t0 === null) continue;
    if (sensors.belongs(d, kind)) packets.push(recordedPacket(kind, d, t0, layout, expectedBytes));
    else otherSensorPackets++;
  }
  // Captures are written in arrival order, but a merged or edited file may not be: replay in time order.
  packets.sort((a, b) => a.timeNs - b.timeNs);
  const spanNs = t0 !== null && tLast !== null ? Number(tLast - t0) : 0;
  return { packets, spanNs, onPorts, otherPortPackets, otherSensorPackets };
}

/** One frame of a recorded lidar_mode, ns; null for a missing or unknown mode. */
function framePeriodNs(lidarMode: unknown): number | null {
  const known = (LIDAR_MODES as readonly unknown[]).includes(lidarMode);
  return known ? 1e9 / frameRateHz(lidarMode as LidarMode) : null;
}

export function loadRecording(file: string, metadataFile = defaultMetadataPath(file)): Recording {
  const metadata = parseRecordingMetadata(readFile(metadataFile, 'metadata').toString('utf8'));
  const { capture, extraction } = readCaptureDatagrams(file);
  const format = metadata.dataFormat;
  const { profile, layout, pixels } = replayableFormat(file, metadata);
  const lidarPort = portOf(metadata.configParams, 'udp_port_lidar', 7502);
  const imuPort = portOf(metadata.configParams, 'udp_port_imu', 7503);
  const zonePort = portOf(metadata.configParams, 'udp_port_zm', 0);
  const expectedBytes = recordedPacketBytes(layout, pixels);
  const ports = { lidar: lidarPort, imu: imuPort, zone: zonePort };
  const kindOf = (d: UdpDatagram) => packetKind(d.dstPort, d.payload, ports, streamHeader(layout));
  const sensors = selectSensor(file, metadata, layout, expectedBytes, sourcesOf(extraction.datagrams, kindOf));
  const collected = collectPackets(extraction.datagrams, kindOf, sensors, layout, expectedBytes);
  const { packets } = collected;
  const lidar = packets.filter((p) => p.kind === 'lidar');
  const zone = packets.filter((p) => p.kind === 'zone');
  if (packets.length === 0) {
    throw new RecordingError(
      `${file}: no UDP packets to the recorded lidar port ${lidarPort} or IMU port ${imuPort}` +
        `${zonePort ? ` or zone port ${zonePort}` : ''} ` +
        `(${extraction.datagrams.length} datagrams on other ports)`,
    );
  }
  const malformed = lidar.filter((p) => !p.wellFormed);
  if (lidar.length > 0 && malformed.length * 2 > lidar.length) {
    const sizes = [...new Set(malformed.map((p) => p.bytes.length))].slice(0, 3).join(', ');
    throw new RecordingError(
      `${file}: lidar packets of ${sizes} bytes do not match the metadata ` +
        `(${profile}, ${pixels} pixels per column: ${expectedBytes} bytes)`,
    );
  }
  checkIdentity(file, metadata, layout, lidar);
  checkColumns(file, format.columns_per_frame, layout, lidar);
  const frames = frameStats(lidar, layout, format.columns_per_frame, format.column_window);
  // One pass spans the whole capture (every sensor's packets), so that units replaying its sensors loop together.
  const interval = collected.onPorts > 1 ? collected.spanNs / (collected.onPorts - 1) : 1e8;
  return {
    file,
    metadataFile,
    metadata,
    profile,
    layout,
    pixels,
    columnsPerFrame: format.columns_per_frame,
    lidarPort,
    imuPort,
    zonePort,
    packets,
    passNs: Math.round(collected.spanNs + interval),
    otherSensors: sensors.others,
    // Zone packets carry the frame id of their frame: a recording of zone packets alone loops by them.
    framesPerPass: frames.span || frameSpan(zone, frameIdModulus(layout)),
    framePeriodNs: framePeriodNs(metadata.configParams.lidar_mode),
    stats: {
      format: capture.format,
      captureFrames: capture.frames.length,
      fragments: extraction.fragments,
      incompleteDatagrams: extraction.incomplete,
      lidarPackets: lidar.length,
      imuPackets: packets.length - lidar.length - zone.length,
      zonePackets: zone.length,
      otherPortPackets: collected.otherPortPackets,
      otherSensorPackets: collected.otherSensorPackets,
      frames: frames.frames,
      completeFrames: frames.complete,
      partialFrames: frames.frames - frames.complete,
      missingFrames: frames.missing,
      malformedPackets: malformed.length,
      badCrcPackets: lidar.filter((p) => p.crcOk === false).length,
      durationNs: packets.length ? packets[packets.length - 1].timeNs : 0,
      truncatedFile: capture.truncated,
    },
  };
}
