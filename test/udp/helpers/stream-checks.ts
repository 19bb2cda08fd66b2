/**
 * What every lidar stream must satisfy, checked on captured datagrams with the independent decoder
 * (docs/udp-packets.md; docs/client-behaviour.md, UDP data).
 */
import { expect } from 'vitest';
import { assembleFrames, isComplete, windowColumns, type AssembledFrame } from '../decoder/frames.js';
import { PACKET_SIZES, isFusa, packetSize, type Profile } from '../decoder/formats.js';
import { decodeLidarPacket, type DecodedLidarPacket } from '../decoder/lidar-decoder.js';

export interface LidarExpectations {
  profile: Profile;
  pixels: number;
  columnsPerFrame: number;
  frameRateHz: number;
  columnWindow: readonly [number, number];
  initId: number;
  serial: bigint;
  /** Sensor clock bounds of the capture: every timestamp lies between them. */
  sensorTimeFrom?: bigint;
  sensorTimeTo?: bigint;
}

/** The parts of `GET /api/v1/sensor/metadata` a stream is checked against. */
export interface StreamMetadata {
  sensor_info: { initialization_id: number; prod_sn: string };
  lidar_data_format: {
    column_window: [number, number];
    columns_per_frame: number;
    pixels_per_column: number;
    udp_profile_lidar: Profile;
  };
  config_params: { lidar_mode: string };
}

/** What the stream must look like, as the sensor's own metadata describes it. */
export function expectationsFrom(md: StreamMetadata): LidarExpectations {
  const f = md.lidar_data_format;
  return {
    profile: f.udp_profile_lidar,
    pixels: f.pixels_per_column,
    columnsPerFrame: f.columns_per_frame,
    frameRateHz: Number(md.config_params.lidar_mode.split('x')[1]),
    columnWindow: f.column_window,
    initId: md.sensor_info.initialization_id,
    serial: BigInt(md.sensor_info.prod_sn),
  };
}

/** Packets per frame that hold at least one column of the window. */
export function packetsInWindow(e: Pick<LidarExpectations, 'columnWindow' | 'columnsPerFrame'>): number {
  return new Set(windowColumns(e.columnWindow, e.columnsPerFrame).map((m) => Math.floor(m / 16))).size;
}

/**
 * Decodes `datagrams` (one init id, in arrival order), checks sizes, headers, CRC, ids, frame
 * sequence and timestamps, and returns the frames; complete ones are those covering the window.
 */
export function checkLidarStream(
  datagrams: readonly Buffer[],
  e: LidarExpectations,
): { packets: DecodedLidarPacket[]; frames: AssembledFrame[]; complete: AssembledFrame[] } {
  const size = packetSize(e.profile, e.pixels);
  if (e.pixels in PACKET_SIZES[e.profile]) expect(size).toBe(PACKET_SIZES[e.profile][e.pixels as 32]);
  const packets = datagrams.map((d) => {
    expect(d.length).toBe(size);
    return decodeLidarPacket(d, e.profile, e.pixels);
  });
  const windowIds = new Set(windowColumns(e.columnWindow, e.columnsPerFrame));
  const framePeriodNs = 1e9 / e.frameRateHz;
  for (const p of packets) {
    expect(p.packetType).toBe(1);
    expect(p.initId).toBe(e.initId);
    expect(p.serial).toBe(e.serial);
    expect(p.footerOk, 'CRC-64/XZ footer (STANDARD) or zero footer (FUSA)').toBe(true);
    expect(p.reservedZero).toBe(true);
    const first = p.columns[0].measurementId;
    expect(first % 16).toBe(0);
    p.columns.forEach((c, i) => {
      expect(c.measurementId).toBe(first + i);
      const inside = windowIds.has(c.measurementId);
      expect(c.status & 1).toBe(inside ? 1 : 0);
      if (!inside)
        expect(c.pixels.every((px) => px.range === 0 && px.signal === 0 && px.reflectivity === 0)).toBe(true);
      // Column k at frame_start + k / (columns_per_frame × rate): the same offset from the packet's first column.
      const expectedOffset = (i * framePeriodNs) / e.columnsPerFrame;
      expect(Math.abs(Number(c.timestamp - p.columns[0].timestamp) - expectedOffset)).toBeLessThanOrEqual(1);
      if (e.sensorTimeFrom !== undefined) expect(c.timestamp >= e.sensorTimeFrom - BigInt(framePeriodNs)).toBe(true);
      if (e.sensorTimeTo !== undefined) expect(c.timestamp <= e.sensorTimeTo).toBe(true);
    });
    // A packet wholly outside the window is never sent.
    expect(p.columns.some((c) => windowIds.has(c.measurementId))).toBe(true);
  }

  const frames = assembleFrames(packets);
  for (let i = 1; i < frames.length; i++) {
    const step = isFusa(e.profile)
      ? frames[i].frameId - frames[i - 1].frameId
      : (frames[i].frameId - frames[i - 1].frameId + 65536) % 65536;
    expect(step, 'frame_id advances by one per frame').toBe(1);
  }
  for (const f of frames) {
    // Within a frame, packets arrive in measurement order (the first packet of a wrapping window may be the highest).
    const frameStart =
      f.packets[0].columns[0].timestamp -
      BigInt(Math.round((f.packets[0].columns[0].measurementId * framePeriodNs) / e.columnsPerFrame));
    for (const p of f.packets) {
      for (const c of p.columns) {
        const offset = Number(c.timestamp - frameStart) - (c.measurementId * framePeriodNs) / e.columnsPerFrame;
        expect(Math.abs(offset)).toBeLessThanOrEqual(1);
      }
    }
  }
  const complete = frames.filter((f) => isComplete(f, e.columnWindow, e.columnsPerFrame));
  for (const f of complete) expect(f.packets.length).toBe(packetsInWindow(e));
  // Consecutive complete frames start exactly one frame period apart.
  for (let i = 1; i < complete.length; i++) {
    const a = complete[i - 1];
    const b = complete[i];
    const m = [...a.columns.keys()].find((id) => b.columns.has(id) && windowIds.has(id))!;
    const frames = isFusa(e.profile) ? b.frameId - a.frameId : (b.frameId - a.frameId + 65536) % 65536;
    expect(b.columns.get(m)!.timestamp - a.columns.get(m)!.timestamp).toBe(BigInt(framePeriodNs * frames));
  }
  return { packets, frames, complete };
}
