/**
 * The device build's zone interface (`--hal linux`, in-process): the core hands the rendered live zones to
 * the HAL through ZoneHal.setZones when a set is applied and when live_ids change; the HAL says it has no
 * zone hardware, the unit logs that once and the page's zone status shows it; the zone routes still store,
 * persist and serve the set and the live ids.
 */
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { Hal } from '../../src/hal/types.js';
import type { ZoneMonitorPlan } from '../../src/udp/index.js';
import { createTestSensor, removeDir, type TestSensor } from '../helpers/test-sensor.js';
import { stageAndApply, stlZoneSetZip } from './zone-set-zips.js';

// Log lines are read field by field.
type LogLine = any;

let unit: TestSensor | undefined;
afterEach(async () => {
  await unit?.close();
  if (unit) removeDir(unit.dataDir);
});

/** A linux-HAL unit whose zone interface records what the core hands it (and still passes it on). */
async function linuxUnit(handed: (ZoneMonitorPlan | null)[], logs: LogLine[], dataDir?: string) {
  const wrap = (hal: Hal): Hal => {
    const zones = hal.streams.zones;
    if (!zones) throw new Error('the linux HAL has no zone interface');
    const recording = {
      watcher: zones.watcher,
      setZones(plan: ZoneMonitorPlan | null) {
        handed.push(plan);
        zones.setZones(plan);
      },
    };
    return {
      ...hal,
      close: () => hal.close(),
      streams: Object.assign(Object.create(hal.streams), { zones: recording }),
    };
  };
  const logger = pino({ level: 'info' }, { write: (line: string) => void logs.push(JSON.parse(line)) });
  return createTestSensor({
    product: 'OS-1-32',
    dataDir,
    hal: wrap,
    unit: { hal: 'linux', firmwareVersion: '3.2', logger },
  });
}

const FRONT = { min: [1, -0.5, -0.5], max: [2, 0.5, 0.5] };
const LEFT = { min: [-0.5, 1, -0.5], max: [0.5, 2, 0.5] };

describe('the linux HAL zone interface', () => {
  it('gets the rendered live zones on apply and live_ids; says it has no zone hardware, once; the routes store and serve', async () => {
    const handed: (ZoneMonitorPlan | null)[] = [];
    const logs: LogLine[] = [];
    unit = await linuxUnit(handed, logs);
    expect(unit.hal.kind).toBe('linux');
    expect(unit.hal.streams.zones?.watcher).toMatchObject({ hardware: false, rendersZones: false });

    const zip = stlZoneSetZip([
      { id: 3, ...FRONT, mode: 'VACANCY', pointCount: 5, frameCount: 2 },
      { id: 9, ...LEFT },
    ]);
    await stageAndApply(unit.app, zip);

    const applied = handed.at(-1);
    expect(applied?.zones.map((z) => [z.id, z.triggerType, z.pointCount, z.frameCount])).toEqual([
      [3, 2, 5, 2],
      [9, 1, 10, 1],
    ]);
    for (const z of applied?.zones ?? []) {
      const images = z.images;
      expect(images?.columns, `zone ${z.id}`).toBe(1024);
      expect(images?.rays.length, `rays crossing zone ${z.id}`).toBeGreaterThan(0);
      for (let i = 0; i < (images?.rays.length ?? 0); i++)
        expect(images?.nearMm[i]).toBeLessThanOrEqual(images?.farMm[i] ?? 0);
    }

    const live = await unit.app.inject({ method: 'POST', url: '/api/v1/zone_monitor/live_ids', payload: [9] });
    expect(live.statusCode, live.body).toBe(204);
    expect(handed.at(-1)?.zones.map((z) => z.id)).toEqual([9]);

    const said = logs.filter((l) => l.zoneHardware === false);
    expect(said).toHaveLength(1);
    expect(said[0].msg).toMatch(/no zone hardware/);
    const page = (await unit.app.inject({ url: '/web/api/zones' })).json();
    expect(page.watcher).toMatchObject({ hardware: false, renders_zones: false });
    expect(page.watcher.detail).toMatch(/no zone hardware/);

    // Stored: after a power cycle the set and the live ids are served again.
    const dataDir = unit.dataDir;
    await unit.close();
    handed.length = 0;
    unit = await linuxUnit(handed, logs, dataDir);
    const active = await unit.app.inject({ url: '/api/v1/zone_monitor/active/zip' });
    expect(active.statusCode).toBe(200);
    expect(Buffer.compare(active.rawPayload, Buffer.from(zip))).toBe(0);
    expect((await unit.app.inject({ url: '/api/v1/zone_monitor/live_ids' })).json()).toEqual([9]);
  });
});
