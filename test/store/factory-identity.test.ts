/**
 * Issue 45: who the unit is comes from its factory data file, not from the configuration database.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createUnit, StartupError } from '../../src/main/unit.js';
import { openDatabase } from '../../src/store/database.js';
import { KV_KEYS, KvStore } from '../../src/store/kv-store.js';
import { createTestSensor, removeDir } from '../helpers/test-sensor.js';
import { runCli } from '../helpers/cli-process.js';
import { ROOT } from '../docs/repository-files.js';

const dirs: string[] = [];
const fresh = () => {
  const dir = mkdtempSync(join(tmpdir(), 'factory-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) removeDir(dir);
});

async function serialOf(dataDir: string, serial?: string): Promise<string> {
  const unit = await createTestSensor({ dataDir, unit: { serial } });
  try {
    return (await unit.app.inject({ method: 'GET', url: '/api/v1/sensor/metadata/sensor_info' })).json().prod_sn;
  } finally {
    await unit.close();
  }
}

describe('factory data', () => {
  it('a simulated unit writes it once and keeps its serial when the database is removed', async () => {
    const dir = fresh();
    const first = await serialOf(dir);
    const factory = JSON.parse(readFileSync(join(dir, 'factory.json'), 'utf8'));
    expect(factory.serial_number).toBe(first);
    expect(factory.sha256).toMatch(/^[0-9a-f]{64}$/);
    for (const name of ['sensor.db', 'sensor.db-wal', 'sensor.db-shm']) removeDir(join(dir, name));
    expect(await serialOf(dir)).toBe(first);
  });

  it('moves the serial an earlier version kept in the database to the factory file, the same serial', async () => {
    const dir = fresh();
    const db = openDatabase(dir);
    new KvStore(db).set(KV_KEYS.legacyIdentity, { serialNumber: '122201000999' });
    db.close();
    expect(await serialOf(dir)).toBe('122201000999');
    expect(JSON.parse(readFileSync(join(dir, 'factory.json'), 'utf8')).serial_number).toBe('122201000999');
    const again = openDatabase(dir);
    expect(new KvStore(again).get(KV_KEYS.legacyIdentity)).toBeUndefined();
    again.close();
  });

  it('a real unit without factory data refuses to invent a serial, and says so', async () => {
    const dir = fresh();
    const start = createUnit({ dataDir: dir, hal: 'linux' });
    await expect(start).rejects.toThrow(StartupError);
    await expect(start).rejects.toThrow(/no factory data .*factory\.json.*does not invent a serial/);
    expect(existsSync(join(dir, 'factory.json'))).toBe(false);
  });

  // The device's service does not start it again for this status (deploy/lidar-sensor.service): a first boot
  // without factory data stops once, with its one line, instead of a restart a second on the device's flash.
  it('the command of a real unit without factory data ends with one line and exit status 78, not 2', async () => {
    const dir = fresh();
    const r = await runCli(['--hal', 'linux', '--host', '127.0.0.1', '--port', '0', '--data-dir', dir]);
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^lidar-sensor: no factory data .*--serial/)]);
    expect(r.code).toBe(78);
    expect(readFileSync(join(ROOT, 'deploy/lidar-sensor.service'), 'utf8')).toMatch(/^RestartPreventExitStatus=78$/m);
  });

  it('a real unit with damaged factory data refuses to start, and names the damage', async () => {
    const dir = fresh();
    const serial = await serialOf(dir);
    const path = join(dir, 'factory.json');
    writeFileSync(path, readFileSync(path, 'utf8').replace(serial, '122201000124'));
    await expect(createUnit({ dataDir: dir, hal: 'linux' })).rejects.toThrow(
      /factory data .* is damaged \(its checksum does not match its fields\)/,
    );
    // The damaged file stays where it is on a real unit: it is the evidence.
    expect(readFileSync(path, 'utf8')).toContain('122201000124');
  });

  it('a real unit refuses a --serial that differs from its factory data', async () => {
    const dir = fresh();
    const serial = await serialOf(dir);
    await expect(createUnit({ dataDir: dir, hal: 'linux', serial: '122201000555' })).rejects.toThrow(
      new RegExp(`says serial ${serial}; --serial 122201000555 cannot change`),
    );
  });
});
