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

  it('more than 128 zones, and ids above 255 (one byte in zone packets and the SDK)', async () => {
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
    const box = encodeBinaryStl(boxTriangles([2, -1, -1], [3, 1, 1]));
    const zone = {
      point_count: 1,
      frame_count: 1,
      mode: 'OCCUPANCY',
      stl: { file_name: '0.stl', coordinate_frame: 'SENSOR' },
    };
    expect((await refusal(zipOf({ 'metadata.json': metadata({ 300: zone }, [300]), '0.stl': box }))).detail).toMatch(
      /^zone set refused, rule zone-id: zone id 300 is above 255/,
    );
    expect((await refusal(zipOf({ 'metadata.json': metadata({ 0: zone }, [0, 256]), '0.stl': box }))).detail).toMatch(
      /rule live-ids: power_on_live_ids names 256: zone ids are 0\.\.255/,
    );
  });
});

/** A zone as the SDK's example writes it; each case below breaks one rule of the SDK's schema. */
const GOOD_ZONE = {
  point_count: 1,
  frame_count: 1,
  mode: 'OCCUPANCY',
  label: 'front',
  stl: { file_name: '0.stl', coordinate_frame: 'SENSOR', hash: 'a'.repeat(64) },
};
const BOX = encodeBinaryStl(boxTriangles([2, -1, -1], [3, 1, 1]));
const TOP = { version: { metadata: 1, file_naming: 1 }, power_on_live_ids: [0] };
const withZone = (zone: Record<string, unknown>, top: Record<string, unknown> = {}) =>
  zipOf({ 'metadata.json': JSON.stringify({ ...TOP, zones: { 0: zone }, ...top }), '0.stl': BOX });
const without = (key: string, from: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(from).filter(([k]) => k !== key));

describe("a set the SDK's schema refuses is refused naming the zone, the key and the rule", () => {
  const cases: [string, Uint8Array, RegExp][] = [
    [
      'an unknown key inside stl',
      withZone({ ...GOOD_ZONE, stl: { ...GOOD_ZONE.stl, colour: 'red' } }),
      /^zone 0 refused, rule schema: stl has an unknown key "colour" \(the SDK's schema rule additionalProperties\)/,
    ],
    [
      'an STL zone without coordinate_frame',
      withZone({ ...GOOD_ZONE, stl: without('coordinate_frame', GOOD_ZONE.stl) }),
      /^zone 0 refused, rule schema: stl\.coordinate_frame is missing \(the SDK's schema rule required\)/,
    ],
    [
      'an unknown key in a zone',
      withZone({ ...GOOD_ZONE, colour: 'red' }),
      /^zone 0 refused, rule schema: it has an unknown key "colour"/,
    ],
    [
      'an unknown top-level key',
      withZone(GOOD_ZONE, { owner: 'me' }),
      /^zone set refused, rule schema: metadata\.json: it has an unknown key "owner"/,
    ],
    [
      'no point_count',
      withZone(without('point_count', GOOD_ZONE)),
      /^zone 0 refused, rule schema: point_count is missing/,
    ],
    [
      'a frame_count of 0',
      withZone({ ...GOOD_ZONE, frame_count: 0 }),
      /^zone 0 refused, rule schema: frame_count must be >= 1 \(the SDK's schema rule minimum\)/,
    ],
    [
      'a point_count above 262143',
      withZone({ ...GOOD_ZONE, point_count: 262_144 }),
      /^zone 0 refused, rule schema: point_count must be <= 262143 \(the SDK's schema rule maximum\)/,
    ],
    [
      'a mode outside the enum',
      withZone({ ...GOOD_ZONE, mode: 'PRESENCE' }),
      /^zone 0 refused, rule schema: mode must be one of VACANCY, OCCUPANCY \(the SDK's schema rule enum\)/,
    ],
    [
      'a coordinate_frame outside the enum',
      withZone({ ...GOOD_ZONE, stl: { ...GOOD_ZONE.stl, coordinate_frame: 'WORLD' } }),
      /stl\.coordinate_frame must be one of SENSOR, BODY/,
    ],
    [
      'neither stl nor zrb',
      withZone(without('stl', GOOD_ZONE)),
      /^zone 0 refused, rule schema: has neither an stl nor a zrb \(the SDK's schema rule anyOf\)/,
    ],
    [
      'a zrb without file_name',
      withZone({ ...without('stl', GOOD_ZONE), zrb: { hash: 'b'.repeat(64) } }),
      /^zone 0 refused, rule schema: zrb\.file_name is missing/,
    ],
    [
      'a zrb without hash',
      withZone({ ...without('stl', GOOD_ZONE), zrb: { file_name: '0.zrb' } }),
      /^zone 0 refused, rule schema: zrb\.hash is missing/,
    ],
    [
      'an stl hash that is not 64 hex digits',
      withZone({ ...GOOD_ZONE, stl: { ...GOOD_ZONE.stl, hash: 'xyz' } }),
      /^zone 0 refused, rule schema: stl\.hash must match pattern/,
    ],
    [
      'an stl file name with a path',
      withZone({ ...GOOD_ZONE, stl: { ...GOOD_ZONE.stl, file_name: 'dir/0.stl' } }),
      /^zone 0 refused, rule schema: stl\.file_name must match pattern/,
    ],
    [
      'a label over 64 characters',
      withZone({ ...GOOD_ZONE, label: 'x'.repeat(65) }),
      /^zone 0 refused, rule schema: label must NOT have more than 64 characters/,
    ],
    [
      'a zone id that is not a number',
      zipOf({ 'metadata.json': JSON.stringify({ ...TOP, zones: { front: GOOD_ZONE } }), '0.stl': BOX }),
      /^zone set refused, rule schema: metadata\.json: zone id "front" is not a non-negative integer/,
    ],
    [
      'no version',
      zipOf({ 'metadata.json': JSON.stringify({ power_on_live_ids: [0], zones: { 0: GOOD_ZONE } }), '0.stl': BOX }),
      /^zone set refused, rule schema: metadata\.json: version is missing/,
    ],
    [
      'a version without file_naming',
      withZone(GOOD_ZONE, { version: { metadata: 1 } }),
      /version\.file_naming is missing/,
    ],
    [
      'no power_on_live_ids',
      zipOf({ 'metadata.json': JSON.stringify({ version: TOP.version, zones: { 0: GOOD_ZONE } }), '0.stl': BOX }),
      /power_on_live_ids is missing/,
    ],
    [
      '17 power_on_live_ids',
      withZone(GOOD_ZONE, { power_on_live_ids: Array.from({ length: 17 }, (_, i) => i) }),
      /power_on_live_ids must NOT have more than 16 items \(the SDK's schema rule maxItems\)/,
    ],
    [
      'a sensor_to_body_transform of 15 numbers',
      withZone(GOOD_ZONE, { sensor_to_body_transform: IDENTITY.slice(1) }),
      /sensor_to_body_transform must NOT have fewer than 16 items/,
    ],
  ];
  it.each(cases)('%s', async (_name, zip, detail) => {
    const body = await refusal(zip);
    expect(body.type).toBe('urn:lidar-sensor:problem:invalid-zone-set');
    expect(body.detail).toMatch(detail);
  });

  it('an entry found without regard to case, as the SDK finds it (0.STL for 0.stl), is taken', async () => {
    const res = await unit.app.inject({
      method: 'POST',
      url: '/api/v1/zone_monitor/staged/zip',
      headers: { 'content-type': 'application/octet-stream' },
      payload: Buffer.from(
        zipOf({ 'METADATA.json': JSON.stringify({ ...TOP, zones: { 0: GOOD_ZONE } }), '0.STL': BOX }),
      ),
    });
    expect(res.statusCode, res.body).toBe(204);
  });

  it("takes what the SDK's schema takes: further version keys, an empty label", async () => {
    const res = await unit.app.inject({
      method: 'POST',
      url: '/api/v1/zone_monitor/staged/zip',
      headers: { 'content-type': 'application/octet-stream' },
      payload: Buffer.from(withZone(GOOD_ZONE, { version: { metadata: 1, file_naming: 1, renderer: 2 }, label: '' })),
    });
    expect(res.statusCode, res.body).toBe(204);
  });
});
