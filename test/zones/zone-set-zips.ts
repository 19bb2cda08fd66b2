/**
 * Zone set zips made the way the vendor SDK's example zone_monitor_zone_set.cpp makes them: metadata.json
 * (version, power_on_live_ids, zones with point_count, frame_count, mode, label and the STL's file name,
 * coordinate frame and hash, an identity sensor_to_body_transform) and one binary STL per zone.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { zipSync, strToU8 } from 'fflate';
import { expect } from 'vitest';
import { boxTriangles, encodeBinaryStl } from '../../src/model/index.js';

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
  const files: Record<string, Uint8Array> = {};
  const metadata = {
    label: 'boxes in front of the unit',
    version: { metadata: 1, file_naming: 1 },
    power_on_live_ids: liveIds,
    zones: Object.fromEntries(
      zones.map((z) => {
        const stl = encodeBinaryStl(boxTriangles(z.min, z.max));
        files[`${z.id}.stl`] = stl;
        return [
          String(z.id),
          {
            point_count: z.pointCount ?? 10,
            frame_count: z.frameCount ?? 1,
            mode: z.mode ?? 'OCCUPANCY',
            label: `box ${z.id}`,
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

/** A zip of the given files as they are (for sets the rules refuse). */
export function zipOf(files: Record<string, Uint8Array | string>): Uint8Array {
  return zipSync(
    Object.fromEntries(Object.entries(files).map(([k, v]) => [k, typeof v === 'string' ? strToU8(v) : v])),
  );
}

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
