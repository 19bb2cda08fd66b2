/**
 * Issue 45: a damaged database never stops the unit. 50 seeds of random damage to a unit's data
 * directory, taken as a power cut leaves it (the database and its write-ahead log, copied while the
 * unit runs): the header page, inside a table, the WAL, a truncated file, a zero-length file, a
 * directory where the file should be. Each start must answer, keep the serial of the factory data,
 * raise CONFIG_INVALID whenever what was written is not what it reads back, and keep the damaged
 * file aside whenever it raises it.
 */
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
  openSync,
  writeSync,
  closeSync,
  readFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALERT_IDS } from '../../src/model/alert-catalogue.js';
import { seededRandom } from '../helpers/seeded-random.js';
import { createTestSensor, removeDir, type TestSensor } from '../helpers/test-sensor.js';

const KINDS = ['header', 'table', 'wal', 'truncated', 'empty', 'directory'] as const;
type Kind = (typeof KINDS)[number];
const WRITTEN = { udp_port_lidar: 7777, udp_port_imu: 7778, lidar_mode: '512x10' };
const USER_DATA = `seeded user data ${'x'.repeat(6000)}`;
const SEEDS = 50;

let golden: string;
let serial: string;
const dirs: string[] = [];

/** A unit on `dataDir` whose serial comes from the directory's factory data only. */
const startOn = (dataDir: string) => createTestSensor({ dataDir, unit: { serial: undefined } });

async function stateOf(unit: TestSensor) {
  const config = await unit.app.inject({ method: 'GET', url: '/api/v1/sensor/config' });
  const user = await unit.app.inject({ method: 'GET', url: '/api/v1/user/data' });
  const info = await unit.app.inject({ method: 'GET', url: '/api/v1/sensor/metadata/sensor_info' });
  const alerts = await unit.app.inject({ method: 'GET', url: '/api/v1/sensor/alerts' });
  expect([config.statusCode, user.statusCode, info.statusCode, alerts.statusCode]).toEqual([200, 200, 200, 200]);
  return {
    config: config.json() as Record<string, unknown>,
    userData: user.json() as string,
    serial: (info.json() as { prod_sn: string }).prod_sn,
    configInvalid: (alerts.json() as { active: { id: string; msg_verbose: string }[] }).active.find(
      (a) => a.id === ALERT_IDS.CONFIG_INVALID,
    ),
  };
}

/** `count` overwrites of 256 random bytes at random places in [from, to) of the file. */
function overwrite(path: string, random: () => number, from: number, to: number, count: number): void {
  const fd = openSync(path, 'r+');
  try {
    for (let i = 0; i < count; i++) {
      const bytes = Buffer.from(Array.from({ length: 256 }, () => Math.floor(random() * 256)));
      writeSync(fd, bytes, 0, bytes.length, from + Math.floor(random() * Math.max(1, to - from - 256)));
    }
  } finally {
    closeSync(fd);
  }
}

/** The WAL's frames before its last commit (damage in the last transaction is a torn write, see src/store/wal-check.ts). */
function walFramesBeforeLastCommit(wal: Buffer): number {
  const pageSize = wal.readUInt32BE(8);
  const frameBytes = 24 + pageSize;
  const salt = wal.readUInt32BE(16);
  let lastCommitEnd = 32;
  let previousCommitEnd = 32;
  for (let at = 32; at + frameBytes <= wal.length && wal.readUInt32BE(at + 8) === salt; at += frameBytes) {
    if (wal.readUInt32BE(at + 4) !== 0) {
      previousCommitEnd = lastCommitEnd;
      lastCommitEnd = at + frameBytes;
    }
  }
  return previousCommitEnd;
}

function damage(dir: string, kind: Kind, random: () => number): void {
  const db = join(dir, 'sensor.db');
  const size = statSync(db).size;
  switch (kind) {
    case 'header':
      overwrite(db, random, 0, 4096, 1 + Math.floor(random() * 3));
      break;
    case 'table':
      overwrite(db, random, 4096, size, 8);
      break;
    case 'wal': {
      const wal = readFileSync(`${db}-wal`);
      overwrite(`${db}-wal`, random, 32, walFramesBeforeLastCommit(wal), 1 + Math.floor(random() * 3));
      break;
    }
    case 'truncated':
      rmSync(`${db}-wal`, { force: true });
      truncateSync(db, Math.floor(size * (0.2 + random() * 0.6)));
      break;
    case 'empty':
      rmSync(`${db}-wal`, { force: true });
      writeFileSync(db, '');
      break;
    case 'directory':
      rmSync(db);
      rmSync(`${db}-wal`, { force: true });
      mkdirSync(db);
      writeFileSync(join(db, 'something'), 'not a database');
      break;
  }
}

beforeAll(async () => {
  // A unit that has been used: configuration, user data and alerts written, then its files taken as
  // a power cut leaves them (the WAL not yet checkpointed into the database).
  const unit = await startOn(mkdtempSync(join(tmpdir(), 'seeds-source-')));
  dirs.push(unit.dataDir);
  const post = await unit.app.inject({ method: 'POST', url: '/api/v1/sensor/config', payload: WRITTEN });
  expect(post.statusCode).toBe(204);
  const put = await unit.app.inject({
    method: 'PUT',
    url: '/api/v1/user/data?policy=keep_on_config_delete',
    payload: JSON.stringify(USER_DATA),
    headers: { 'content-type': 'application/json' },
  });
  expect(put.statusCode).toBe(204);
  const before = await stateOf(unit);
  serial = before.serial;
  golden = mkdtempSync(join(tmpdir(), 'seeds-golden-'));
  dirs.push(golden);
  for (const name of ['sensor.db', 'sensor.db-wal', 'factory.json'])
    copyFileSync(join(unit.dataDir, name), join(golden, name));
  await unit.close();
});

afterAll(() => {
  for (const dir of dirs) removeDir(dir);
});

describe('a damaged database', () => {
  it('the undamaged copy starts with everything written and no CONFIG_INVALID (the oracle of the seeds)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'seeds-clean-'));
    dirs.push(dir);
    for (const name of readdirSync(golden)) copyFileSync(join(golden, name), join(dir, name));
    const unit = await startOn(dir);
    try {
      const state = await stateOf(unit);
      expect(state.config).toMatchObject(WRITTEN);
      expect(state.userData).toBe(USER_DATA);
      expect(state.serial).toBe(serial);
      expect(state.configInvalid).toBeUndefined();
      expect(readdirSync(dir).filter((f) => f.includes('.damaged-'))).toEqual([]);
    } finally {
      await unit.close();
    }
  });

  for (let seed = 1; seed <= SEEDS; seed++) {
    const kind = KINDS[seed % KINDS.length];
    it(`seed ${seed} (${kind}): starts, answers, keeps its serial, says what was lost and keeps the file aside`, async () => {
      const random = seededRandom(seed * 7919);
      const dir = mkdtempSync(join(tmpdir(), `seeds-${kind}-`));
      dirs.push(dir);
      for (const name of readdirSync(golden)) copyFileSync(join(golden, name), join(dir, name));
      damage(dir, kind, random);
      const unit = await startOn(dir);
      try {
        const state = await stateOf(unit);
        expect(state.serial).toBe(serial);
        const kept = readdirSync(dir).filter((f) => f.startsWith('sensor.db.damaged-'));
        const intact =
          WRITTEN.udp_port_lidar === state.config.udp_port_lidar &&
          WRITTEN.udp_port_imu === state.config.udp_port_imu &&
          WRITTEN.lidar_mode === state.config.lidar_mode &&
          state.userData === USER_DATA;
        if (!intact) expect(state.configInvalid, 'data was lost without CONFIG_INVALID').toBeDefined();
        if (['truncated', 'empty', 'directory'].includes(kind)) expect(state.configInvalid).toBeDefined();
        if (state.configInvalid) {
          expect(kept.length).toBeGreaterThan(0);
          expect(state.configInvalid.msg_verbose).toContain(kept.find((f) => !f.endsWith('-wal')));
          expect(state.configInvalid.msg_verbose).toMatch(/Lost, now at factory defaults: .+\. Recovered: /);
        }
        // What the unit now writes is stored: the rebuilt database works.
        const put = await unit.app.inject({
          method: 'PUT',
          url: '/api/v1/user/data',
          payload: '"after the damage"',
          headers: { 'content-type': 'application/json' },
        });
        expect(put.statusCode).toBe(204);
      } finally {
        await unit.close();
      }
      const again = await startOn(dir);
      try {
        const state = await stateOf(again);
        expect(state.userData).toBe('after the damage');
        expect(state.serial).toBe(serial);
      } finally {
        await again.close();
      }
      expect(existsSync(join(dir, 'sensor.db.rebuilt'))).toBe(false);
    });
  }
});
