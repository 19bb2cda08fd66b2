/**
 * Zone set zips made the way the vendor SDK's example zone_monitor_zone_set.cpp makes them: metadata.json
 * (version, power_on_live_ids, zones with point_count, frame_count, mode, label and the STL's file name,
 * coordinate frame and hash, an identity sensor_to_body_transform) and one binary STL per zone.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { zipSync, strToU8 } from 'fflate';
import { expect } from 'vitest';
import { boxTriangles, encodeBinaryStl, encodeZrb } from '../../src/model/index.js';

export interface BoxZone {
  id: number;
  /** Corners in metres, in the sensor frame (identity sensor-to-body transform). */
  min: readonly number[];
  max: readonly number[];
  mode?: 'OCCUPANCY' | 'VACANCY';
  pointCount?: number;
  frameCount?: number;
}

export const IDENTITY = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];

export function stlZoneSetZip(
  zones: readonly BoxZone[],
  liveIds = zones.map((z) => z.id),
  sensorToBody: readonly number[] = IDENTITY,
): Uint8Array {
  return meshZoneSetZip(
    zones.map((z) => ({ ...z, triangles: boxTriangles(z.min, z.max) })),
    liveIds,
    sensorToBody,
  );
}

export interface MeshZone extends Omit<BoxZone, 'min' | 'max'> {
  /** In metres, in the body frame. */
  triangles: Float64Array;
}

/** A zone set of STL zones, one binary STL per zone, as the SDK's example makes it. */
export function meshZoneSetZip(
  zones: readonly MeshZone[],
  liveIds = zones.map((z) => z.id),
  sensorToBody: readonly number[] = IDENTITY,
): Uint8Array {
  const files: Record<string, Uint8Array> = {};
  const metadata = {
    label: 'zones around the unit',
    version: { metadata: 1, file_naming: 1 },
    power_on_live_ids: liveIds,
    zones: Object.fromEntries(
      zones.map((z) => {
        const stl = encodeBinaryStl(z.triangles);
        files[`${z.id}.stl`] = stl;
        return [
          String(z.id),
          {
            point_count: z.pointCount ?? 10,
            frame_count: z.frameCount ?? 1,
            mode: z.mode ?? 'OCCUPANCY',
            label: `zone ${z.id}`,
            stl: {
              file_name: `${z.id}.stl`,
              coordinate_frame: 'BODY',
              hash: createHash('sha256').update(stl).digest('hex'),
            },
          },
        ];
      }),
    ),
    sensor_to_body_transform: sensorToBody,
  };
  return zipSync({ 'metadata.json': strToU8(JSON.stringify(metadata, null, 4)), ...files });
}

/**
 * A UV sphere of `segments × (rings - 1) × 2` triangles (25 × 20 × 2 = 1000; 32 × 32 × 2 = 2048, the most
 * a zone may hold). Around the unit (centre at the origin), every beam crosses it: the costliest render.
 */
export function sphereTriangles(centre: readonly number[], radius: number, segments = 25, rings = 21): Float64Array {
  const point = (ring: number, seg: number) => {
    const polar = (Math.PI * ring) / (rings - 1);
    const azimuth = (2 * Math.PI * seg) / segments;
    return [
      centre[0] + radius * Math.sin(polar) * Math.cos(azimuth),
      centre[1] + radius * Math.sin(polar) * Math.sin(azimuth),
      centre[2] + radius * Math.cos(polar),
    ];
  };
  const out: number[] = [];
  for (let r = 0; r < rings - 1; r++)
    for (let s = 0; s < segments; s++) {
      const [a, b, c, d] = [point(r, s), point(r, s + 1), point(r + 1, s), point(r + 1, s + 1)];
      out.push(...a, ...c, ...b, ...b, ...c, ...d);
    }
  return Float64Array.from(out);
}

/** A zip of the given files as they are (for sets the rules refuse). */
export function zipOf(files: Record<string, Uint8Array | string>): Uint8Array {
  return zipSync(
    Object.fromEntries(Object.entries(files).map(([k, v]) => [k, typeof v === 'string' ? strToU8(v) : v])),
  );
}

/** A configuration that streams lidar (no IMU) and zone packets to loopback ports, at `lidar_mode`. */
export const zoneStreamConfig = (lidarPort: number, zonePort: number, lidar_mode: string) => ({
  udp_dest: '127.0.0.1',
  udp_port_lidar: lidarPort,
  udp_port_imu: 0,
  udp_dest_zm: '127.0.0.1',
  udp_port_zm: zonePort,
  lidar_mode,
});

/** Stages `zip` on an in-process unit and applies it, expecting both to succeed. */
export async function stageAndApply(app: FastifyInstance, zip: Uint8Array): Promise<void> {
  const staged = await app.inject({
    method: 'POST',
    url: '/api/v1/zone_monitor/staged/zip',
    headers: { 'content-type': 'application/octet-stream' },
    payload: Buffer.from(zip),
  });
  expect(staged.statusCode, staged.body).toBe(204);
  expect((await app.inject({ method: 'POST', url: '/api/v1/zone_monitor/apply' })).statusCode).toBe(204);
}

/** The bytes a zone set zip may hold (the route's body limit). */
export const MAX_ZONE_SET_ZIP_BYTES = 32 * 1024 * 1024;

/**
 * The largest zone set a unit takes: ZRB zones of `rows` x `columns` (the unit's beams and frame width),
 * stored uncompressed, as many as fit the body limit (at most 128), each with its own ranges.
 */
export function largestZrbZoneSetZip(serialNumber: string, rows: number, columns: number): Uint8Array {
  const zrbBytes = 579 + rows * columns * 4;
  const count = Math.min(128, Math.floor((MAX_ZONE_SET_ZIP_BYTES - 64 * 1024) / (zrbBytes + 200)));
  return zrbZoneSetZip(serialNumber, rows, columns, count);
}

/** `count` ZRB zones of `rows` x `columns`, zone i inside 1000 + i to 5000 + i mm at every pixel; zone 0 live at power-on. */
export function zrbZoneSetZip(serialNumber: string, rows: number, columns: number, count: number): Uint8Array {
  const files: Record<string, Uint8Array> = {};
  const zones: Record<string, object> = {};
  for (let id = 0; id < count; id++) {
    files[`${id}.zrb`] = encodeZrb(
      {
        rows,
        columns,
        serialNumber,
        nearMm: new Uint32Array(rows * columns).fill(1000 + id),
        farMm: new Uint32Array(rows * columns).fill(5000 + id),
      },
      { beamToLidar: IDENTITY, lidarToSensor: IDENTITY },
    );
    zones[String(id)] = {
      point_count: 1,
      frame_count: 1,
      mode: 'OCCUPANCY',
      zrb: {
        file_name: `${id}.zrb`,
        hash: createHash('sha256')
          .update(files[`${id}.zrb`] as Uint8Array)
          .digest('hex'),
      },
    };
  }
  const metadata = { version: { metadata: 1, file_naming: 1 }, power_on_live_ids: [0], zones };
  return zipSync({ 'metadata.json': strToU8(JSON.stringify(metadata)), ...files }, { level: 0 });
}
