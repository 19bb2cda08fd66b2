import { afterEach, describe, expect, it } from 'vitest';
import { createTestSensor, removeDir, type TestSensor } from '../helpers/test-sensor.js';
import { createHash } from 'node:crypto';
import { Ajv } from 'ajv';
import { strFromU8, unzipSync } from 'fflate';
import { boxTriangles, encodeBinaryStl } from '../../src/model/index.js';
import { ZoneSetMetadataSchema } from '../../src/model/zone-set-schema.js';
import { stageAndApply, stlZoneSetZip, zipOf } from './zone-set-zips.js';

const OCTET = { 'content-type': 'application/octet-stream' };
/** A box 2-4 m in front of the unit (sensor frame x forward), a metre wide, at the height of the unit. */
const FRONT_BOX = { id: 0, min: [2, -0.5, -0.5], max: [4, 0.5, 0.5] } as const;

let unit: TestSensor | undefined;
afterEach(async () => {
  await unit?.close();
  if (unit) removeDir(unit.dataDir);
  unit = undefined;
});

const stageFrontBox = (u: TestSensor) =>
  u.app.inject({
    method: 'POST',
    url: '/api/v1/zone_monitor/staged/zip',
    headers: OCTET,
    payload: Buffer.from(stlZoneSetZip([FRONT_BOX])),
  });
const firmware32 = () => createTestSensor({ unit: { firmwareVersion: '3.2' } });

describe('Zone Monitor routes', () => {
  it('a 3.1 unit answers them 404, as a 3.1 unit does, and reports v3.1', async () => {
    unit = await createTestSensor();
    for (const [method, url] of [
      ['GET', '/api/v1/zone_monitor/staged/zip'],
      ['GET', '/api/v1/zone_monitor/active/zip'],
      ['POST', '/api/v1/zone_monitor/apply'],
      ['GET', '/api/v1/zone_monitor/live_ids'],
    ] as const) {
      const res = await unit.app.inject({ method, url });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
    }
    const info = (await unit.app.inject({ url: '/api/v1/sensor/metadata/sensor_info' })).json();
    expect(info.image_rev).toMatch(/-v3\.1\.\d+\+/);
    // Nor has it the zone packet destination of 3.2's configuration.
    const config = (await unit.app.inject({ url: '/api/v1/sensor/config' })).json();
    expect(Object.keys(config)).not.toContain('udp_dest_zm');
    const set = await unit.app.inject({ method: 'POST', url: '/api/v1/sensor/config', payload: { udp_port_zm: 7504 } });
    expect(set.statusCode).toBe(400);
    expect(set.json().detail).toMatch(/unknown configuration parameter "udp_port_zm"/);
    expect((await unit.app.inject({ url: '/api/v1/sensor/config/udp_dest_zm' })).statusCode).toBe(404);
    const doc = (await unit.app.inject({ url: '/api/v1/openapi.json' })).json();
    expect(Object.keys(doc.paths).filter((p) => p.includes('zone_monitor'))).toEqual([]);
  });

  it('a 3.2 unit reports v3.2 in sensor_info, firmware and its OpenAPI document, which lists the zone routes', async () => {
    unit = await firmware32();
    const info = (await unit.app.inject({ url: '/api/v1/sensor/metadata/sensor_info' })).json();
    expect(info.image_rev).toMatch(/-v3\.2\.\d+\+/);
    expect(info.build_rev).toBe('v3.2.0');
    const fw = (await unit.app.inject({ url: '/api/v1/system/firmware' })).json();
    expect(fw.fw).toBe(info.image_rev);
    // The vendor's manual: zone packets go once the ZM UDP port is set to a non-zero value; none by default.
    const config = (await unit.app.inject({ url: '/api/v1/sensor/config' })).json();
    expect([config.udp_dest_zm, config.udp_port_zm]).toEqual(['', 0]);
    const doc = (await unit.app.inject({ url: '/api/v1/openapi.json' })).json();
    expect(doc.info.description).toContain('v3.2.0');
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/api/v1/zone_monitor/staged/zip',
        '/api/v1/zone_monitor/active/zip',
        '/api/v1/zone_monitor/apply',
        '/api/v1/zone_monitor/live_ids',
      ]),
    );
  });

  it('an STL zone set like the SDK example is staged, applied, read back byte for byte and survives a restart', async () => {
    unit = await firmware32();
    const zip = stlZoneSetZip([FRONT_BOX, { id: 1, min: [2, 1, -0.5], max: [4, 2, 0.5], mode: 'VACANCY' }]);
    expect((await unit.app.inject({ url: '/api/v1/zone_monitor/active/zip' })).statusCode).toBe(404);
    const staged = await unit.app.inject({
      method: 'POST',
      url: '/api/v1/zone_monitor/staged/zip',
      headers: OCTET,
      payload: Buffer.from(zip),
    });
    expect(staged.statusCode, staged.body).toBe(204);
    const readStaged = await unit.app.inject({ url: '/api/v1/zone_monitor/staged/zip' });
    expect(readStaged.headers['content-type']).toBe('application/octet-stream');
    expect(Buffer.compare(readStaged.rawPayload, Buffer.from(zip))).toBe(0);
    expect((await unit.app.inject({ method: 'POST', url: '/api/v1/zone_monitor/apply' })).statusCode).toBe(204);
    const active = await unit.app.inject({ url: '/api/v1/zone_monitor/active/zip' });
    expect(Buffer.compare(active.rawPayload, Buffer.from(zip))).toBe(0);
    expect((await unit.app.inject({ url: '/api/v1/zone_monitor/live_ids' })).json()).toEqual([0, 1]);
    const set = await unit.app.inject({ method: 'POST', url: '/api/v1/zone_monitor/live_ids', payload: [1] });
    expect(set.statusCode, set.body).toBe(204);

    unit = await unit.reopen();
    const after = await unit.app.inject({ url: '/api/v1/zone_monitor/active/zip' });
    expect(after.statusCode).toBe(200);
    expect(Buffer.compare(after.rawPayload, Buffer.from(zip))).toBe(0);
    expect((await unit.app.inject({ url: '/api/v1/zone_monitor/live_ids' })).json()).toEqual([1]);
    // The page lists the zones with their live state.
    const page = (await unit.app.inject({ url: '/web/api/zones' })).json();
    expect(page.zones.map((z: { id: number; live: boolean }) => [z.id, z.live])).toEqual([
      [0, false],
      [1, true],
    ]);
  });

  it('DELETE removes the staged set (both paths), and apply without one is 409', async () => {
    unit = await firmware32();
    await stageFrontBox(unit);
    expect((await unit.app.inject({ method: 'DELETE', url: '/api/v1/zone_monitor/staged/zip' })).statusCode).toBe(204);
    expect((await unit.app.inject({ url: '/api/v1/zone_monitor/staged/zip' })).statusCode).toBe(404);
    expect((await unit.app.inject({ method: 'DELETE', url: '/api/v1/zone_monitor/staged' })).statusCode).toBe(204);
    const apply = await unit.app.inject({ method: 'POST', url: '/api/v1/zone_monitor/apply' });
    expect(apply.statusCode).toBe(409);
    expect(apply.json().detail).toMatch(/no zone set is staged/);
  });

  it("live_ids as a 3.2 unit takes them: ids outside the active set too (the vendor's examples), not above 255, repeated or too many", async () => {
    unit = await firmware32();
    // The SDK's zone_monitor_zone_set example applies zones 0 and 1; its zone_monitor_zone_states example then sets 0..3.
    await stageAndApply(unit.app, stlZoneSetZip([FRONT_BOX, { id: 1, min: [2, 1, -0.5], max: [4, 2, 0.5] }]));
    const states = await unit.app.inject({
      method: 'POST',
      url: '/api/v1/zone_monitor/live_ids',
      payload: [0, 1, 2, 3],
    });
    expect(states.statusCode, states.body).toBe(204);
    expect((await unit.app.inject({ url: '/api/v1/zone_monitor/live_ids' })).json()).toEqual([0, 1, 2, 3]);
    for (const payload of [[256], [1, 1], Array.from({ length: 17 }, (_, i) => i)]) {
      const refused = await unit.app.inject({ method: 'POST', url: '/api/v1/zone_monitor/live_ids', payload });
      expect(refused.statusCode, JSON.stringify(payload)).toBe(400);
    }
    expect((await unit.app.inject({ url: '/api/v1/zone_monitor/live_ids' })).json()).toEqual([0, 1, 2, 3]);
  });

  it("a zip built as the SDK's to_zip_blob builds it is taken, and the active zip read back passes the SDK's schema", async () => {
    unit = await firmware32();
    // ZoneSet::to_json: label, version, power_on_live_ids, zones with point_count, frame_count, mode, label and
    // stl {file_name "<id>.stl", coordinate_frame, hash}; no sensor_to_body_transform when the set has none.
    const stl = encodeBinaryStl(boxTriangles([2, -0.5, -0.5], [4, 0.5, 0.5]));
    const metadata = {
      label: '',
      version: { metadata: 1, file_naming: 1 },
      power_on_live_ids: [0],
      zones: {
        0: {
          point_count: 10,
          frame_count: 1,
          mode: 'OCCUPANCY',
          label: '',
          stl: { file_name: '0.stl', coordinate_frame: 'SENSOR', hash: createHash('sha256').update(stl).digest('hex') },
        },
      },
    };
    await stageAndApply(unit.app, zipOf({ 'metadata.json': JSON.stringify(metadata, null, 4), '0.stl': stl }));
    const active = await unit.app.inject({ url: '/api/v1/zone_monitor/active/zip' });
    expect(active.statusCode).toBe(200);
    const served = unzipSync(new Uint8Array(active.rawPayload));
    const validate = new Ajv({ allErrors: true, strict: false }).compile(ZoneSetMetadataSchema);
    const doc = JSON.parse(strFromU8(served['metadata.json']));
    expect(validate(doc), JSON.stringify(validate.errors)).toBe(true);
    expect(Object.keys(served).sort()).toEqual(['0.stl', 'metadata.json']);
  });
});
