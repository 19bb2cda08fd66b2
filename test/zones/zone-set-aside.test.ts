/**
 * A zone set stored before the unit checked the SDK's schema, which the SDK cannot read, would abort every
 * SDK client that opens the unit: at start it is set aside (kept in the diagnostics dump), no set is active,
 * and CONFIG_INVALID and a log line say so.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { DATABASE_FILE } from '../../src/store/database.js';
import { readTarGz } from '../diagnostics/archive-reader.js';
import { createTestSensor, removeDir, type TestSensor } from '../helpers/test-sensor.js';
import { boxTriangles, encodeBinaryStl } from '../../src/model/index.js';
import { zipOf } from './zone-set-zips.js';

let unit: TestSensor | undefined;
afterEach(async () => {
  await unit?.close();
  if (unit) removeDir(unit.dataDir);
  unit = undefined;
});

/** What the unit took before: an STL zone without coordinate_frame ("Key not found: 'coordinate_frame'" in the SDK). */
const UNREADABLE = zipOf({
  'metadata.json': JSON.stringify({
    version: { metadata: 1, file_naming: 1 },
    power_on_live_ids: [0],
    zones: { 0: { point_count: 1, frame_count: 1, mode: 'OCCUPANCY', stl: { file_name: '0.stl' } } },
  }),
  '0.stl': encodeBinaryStl(boxTriangles([2, -1, -1], [3, 1, 1])),
});

describe('a stored zone set the SDK cannot read', () => {
  it('is set aside at start: no active set, CONFIG_INVALID and an error line name it, the dump keeps it', async () => {
    const first = await createTestSensor({ unit: { firmwareVersion: '3.2' } });
    const dataDir = first.dataDir;
    await first.close();
    // Stored as an earlier version stored it.
    const db = new Database(join(dataDir, DATABASE_FILE));
    const put = db.prepare(
      'INSERT INTO kv (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
    );
    put.run('zone_monitor.active', JSON.stringify(Buffer.from(UNREADABLE).toString('base64')));
    put.run('zone_monitor.live_ids', JSON.stringify([0]));
    db.close();

    const lines: { level: number; msg: string; problems?: unknown }[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    unit = await createTestSensor({ dataDir, unit: { firmwareVersion: '3.2', logger } });
    expect((await unit.app.inject({ url: '/api/v1/zone_monitor/active/zip' })).statusCode).toBe(404);
    expect((await unit.app.inject({ url: '/api/v1/zone_monitor/live_ids' })).json()).toEqual([]);
    const line = lines.find((l) => l.msg.startsWith('the stored active zone set cannot be read by the SDK: set aside'));
    expect(line?.level).toBe(50);
    const alerts = (await unit.app.inject({ url: '/api/v1/sensor/alerts' })).json();
    const invalid = alerts.active.find((a: { category: string }) => a.category === 'CONFIG_INVALID');
    expect(invalid?.msg_verbose).toMatch(
      /the active zone set cannot be read by the SDK \(zone 0: stl\.coordinate_frame is missing/,
    );
    const files = await readTarGz((await unit.app.inject('/api/v1/diagnostics/dump')).rawPayload);
    expect(files.has('zone_monitor/set-aside.zip')).toBe(true);
    expect(JSON.parse(files.get('zone_monitor/set-aside.json') as string).problems[0].detail).toMatch(
      /coordinate_frame is missing/,
    );

    // Set aside for good: the next start finds no active set and raises nothing about it.
    unit = await unit.reopen();
    expect((await unit.app.inject({ url: '/api/v1/zone_monitor/active/zip' })).statusCode).toBe(404);
  });
});
