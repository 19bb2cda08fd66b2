import { deflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { zipSync } from 'fflate';
import { createTestSensor, removeDir, type TestSensor } from '../helpers/test-sensor.js';
import { boxTriangles, encodeBinaryStl, encodeZrb } from '../../src/model/index.js';
import { IDENTITY, stlZoneSetZip, zipOf } from './zone-set-zips.js';

let unit: TestSensor;
beforeAll(async () => {
  unit = await createTestSensor({ unit: { firmwareVersion: '3.2' } });
});
afterAll(async () => {
  await unit.close();
  removeDir(unit.dataDir);
});

async function refusal(zip: Uint8Array) {
  const res = await unit.app.inject({
    method: 'POST',
    url: '/api/v1/zone_monitor/staged/zip',
    headers: { 'content-type': 'application/octet-stream', accept: 'application/problem+json' },
    payload: Buffer.from(zip),
  });
  expect(res.statusCode, res.body).toBe(400);
  expect(res.headers['content-type']).toBe('application/problem+json');
  // A refused set changes nothing: nothing is staged.
  expect((await unit.app.inject({ url: '/api/v1/zone_monitor/staged/zip' })).statusCode).toBe(404);
  return res.json() as { type: string; detail: string; errors: { pointer: string; detail: string }[] };
}

const metadata = (zones: Record<string, unknown>, live = [0]) =>
  JSON.stringify({
    version: { metadata: 1, file_naming: 1 },
    power_on_live_ids: live,
    zones,
    sensor_to_body_transform: IDENTITY,
  });

describe('a zone set the unit refuses names the zone and the rule', () => {
  it('a mesh outside the field of view after the transform', async () => {
    // Straight above the unit, far steeper than the top beam.
    const body = await refusal(stlZoneSetZip([{ id: 3, min: [-0.5, -0.5, 10], max: [0.5, 0.5, 11] }], [3]));
    expect(body.type).toBe('urn:lidar-sensor:problem:invalid-zone-set');
    expect(body.detail).toMatch(/^zone 3 refused, rule outside-fov: .*field of view/);
    expect(body.errors[0].pointer).toBe('/zones/3');
  });

  it('the transform moves an otherwise visible mesh out of view', async () => {
    // sensor_to_body takes the sensor's z = 20 m to the body's z = 0: a box drawn at the body's z = 0 floats 20 m above the unit.
    const lifted = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, -20, 0, 0, 0, 1];
    const zip = stlZoneSetZip([{ id: 0, min: [2, -0.5, -0.5], max: [4, 0.5, 0.5], pointCount: 1 }], [0], lifted);
    expect((await refusal(zip)).detail).toMatch(/zone 0 refused, rule outside-fov/);
  });

  it('a point_count above the beams that cross the zone', async () => {
    const body = await refusal(
      stlZoneSetZip([{ id: 5, min: [2, -0.5, -0.5], max: [4, 0.5, 0.5], pointCount: 200_000 }], [5]),
    );
    expect(body.detail).toMatch(/^zone 5 refused, rule point-count: point_count 200000 is more than the \d+ beams/);
  });

  it('a corrupt zip', async () => {
    const zip = stlZoneSetZip([{ id: 0, min: [2, -0.5, -0.5], max: [4, 0.5, 0.5] }]);
    const cut = zip.subarray(0, Math.floor(zip.length / 2));
    expect((await refusal(cut)).detail).toMatch(/^zone set refused, rule corrupt-zip/);
    expect((await refusal(new TextEncoder().encode('not a zip at all'))).detail).toMatch(/rule corrupt-zip/);
  });

  it('a mixed set: one zone STL, another ZRB', async () => {
    const zrb = encodeZrb(
      {
        rows: 128,
        columns: 1024,
        serialNumber: '122201000123',
        nearMm: new Uint32Array(128 * 1024).fill(1000),
        farMm: new Uint32Array(128 * 1024).fill(5000),
      },
      { beamToLidar: IDENTITY, lidarToSensor: IDENTITY },
    );
    const zip = zipOf({
      'metadata.json': metadata(
        {
          0: { point_count: 1, frame_count: 1, mode: 'OCCUPANCY', zrb: { file_name: '0.zrb', hash: '0'.repeat(64) } },
          1: {
            point_count: 1,
            frame_count: 1,
            mode: 'OCCUPANCY',
            stl: { file_name: '1.stl', coordinate_frame: 'SENSOR' },
          },
        },
        [0, 1],
      ),
      '0.zrb': zrb,
      '1.stl': encodeBinaryStl(boxTriangles([2, -0.5, -0.5], [4, 0.5, 0.5])),
    });
    expect((await refusal(zip)).detail).toMatch(/^zone 1 refused, rule mixed-set: a zone set is all STL or all ZRB/);
  });

  it('a zip bomb: stopped while inflating, by size', async () => {
    // 200 MB of zeros deflate to about 200 kB: more than any zone set file, and the whole more than the limit.
    const zeros = new Uint8Array(64 * 1024 * 1024);
    const bomb = zipSync({ 'metadata.json': [zeros, { level: 9 }] });
    expect(bomb.length).toBeLessThan(deflateSync(zeros).length * 2);
    expect((await refusal(bomb)).detail).toMatch(
      /^zone set refused, rule zip-bomb: metadata.json inflates to more than/,
    );
  });

  it('a zip bomb: stopped by the number of entries', async () => {
    const many = Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`${i}.stl`, new Uint8Array(1)]));
    expect((await refusal(zipOf(many))).detail).toMatch(/rule zip-bomb: the zip holds more than \d+ files/);
  });

  it('more than 128 zones, and power_on_live_ids naming a missing zone', async () => {
    const zones = Object.fromEntries(
      Array.from({ length: 129 }, (_, i) => [
        i,
        { point_count: 1, frame_count: 1, mode: 'OCCUPANCY', stl: { file_name: '0.stl', coordinate_frame: 'SENSOR' } },
      ]),
    );
    expect(
      (
        await refusal(
          zipOf({ 'metadata.json': metadata(zones), '0.stl': encodeBinaryStl(boxTriangles([2, -1, -1], [3, 1, 1])) }),
        )
      ).detail,
    ).toMatch(/rule zone-count: a zone set holds 1 to 128 zones; this one holds 129/);
    const live = await refusal(stlZoneSetZip([{ id: 0, min: [2, -0.5, -0.5], max: [4, 0.5, 0.5] }], [0, 9]));
    expect(live.detail).toMatch(/zone 9 refused, rule live-ids/);
  });
});
