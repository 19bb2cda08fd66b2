/**
 * Zone sets render off the event loop (src/core/zones/zone-render-thread.ts): the unit answers requests
 * while a heavy set renders, and a set that cannot render within the unit's bound is refused naming it.
 */
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestSensor, removeDir, type TestSensor } from '../helpers/test-sensor.js';
import { meshZoneSetZip, sphereTriangles } from './zone-set-zips.js';

const OCTET = { 'content-type': 'application/octet-stream' };
/** 2,048 triangles all around the unit: every beam crosses every ring of it, the costliest zone to render. */
const AROUND_THE_UNIT = { id: 0, triangles: sphereTriangles([0, 0, 0], 10, 32, 33) };

let unit: TestSensor | undefined;
afterEach(async () => {
  await unit?.close();
  if (unit) removeDir(unit.dataDir);
  unit = undefined;
});

const stage = (u: TestSensor, zip: Uint8Array) =>
  u.app.inject({ method: 'POST', url: '/api/v1/zone_monitor/staged/zip', headers: OCTET, payload: Buffer.from(zip) });

describe('zone rendering runs off the event loop', () => {
  it('a GET sent once a heavy zone set has begun to render at stage answers before the render ends', async () => {
    const events: string[] = [];
    const logger = pino(
      { level: 'debug' },
      {
        write: (line: string) => {
          if (JSON.parse(line).msg === 'zone set rendered') events.push('render ended');
        },
      },
    );
    unit = await createTestSensor({ product: 'OS-1-32', unit: { firmwareVersion: '3.2', logger } });
    const { app } = unit;
    // The GET goes out as soon as the unit has begun staging (where it reads and renders the set).
    const zones = unit.sensor.zones;
    const stageInUnit = zones.stage.bind(zones);
    let info: Promise<{ statusCode: number }> | undefined;
    zones.stage = (zip) => {
      const staging = stageInUnit(zip);
      info = app.inject({ url: '/api/v1/sensor/metadata/sensor_info' }).then((res) => {
        events.push('get answered');
        return res;
      });
      return staging;
    };
    const staged = await stage(unit, meshZoneSetZip([AROUND_THE_UNIT, { ...AROUND_THE_UNIT, id: 1 }]));
    expect(staged.statusCode, staged.body).toBe(204);
    expect((await info)?.statusCode).toBe(200);
    expect(events).toEqual(['get answered', 'render ended']);
  });

  it('a set that cannot render within the bound is refused naming the rule, and nothing is staged', async () => {
    unit = await createTestSensor({ unit: { firmwareVersion: '3.2', zoneRenderTimeLimitMs: 1 } });
    const res = await stage(unit, meshZoneSetZip([AROUND_THE_UNIT]));
    expect(res.statusCode, res.body).toBe(400);
    const body = res.json();
    expect(body.type).toBe('urn:lidar-sensor:problem:invalid-zone-set');
    expect(body.detail).toMatch(
      /refused, rule render-time: .* did not render within 0\.001 s for frames 1024 columns wide/,
    );
    expect((await unit.app.inject({ url: '/api/v1/zone_monitor/staged/zip' })).statusCode).toBe(404);
  });
});
