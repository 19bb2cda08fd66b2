import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SlotStore } from '../../src/core/firmware/slot-store.js';
import { factoryState, install, planBoot, type SlotImage } from '../../src/model/slot-state.js';
import { openDatabase, type SqliteDatabase } from '../../src/store/database.js';

const image = (n: number): SlotImage => ({
  imageRev: `ousteros-image-prod-bootes-v3.${n}.0+20250101120000`,
  payloadSha256: String(n).repeat(64).slice(0, 64),
  imageLength: 1000 + n,
  manifest: n === 2 ? { 'sim.boot': 'fail' } : {},
});

describe('firmware slot store', () => {
  const dirs: string[] = [];
  const dbs: SqliteDatabase[] = [];
  afterEach(() => {
    for (const db of dbs.splice(0)) db.close();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const open = (dir: string) => {
    const db = openDatabase(dir);
    dbs.push(db);
    return db;
  };

  it('round-trips every state across a reopen of the database', () => {
    const dir = mkdtempSync(join(tmpdir(), 'slot-store-'));
    dirs.push(dir);
    let store = new SlotStore(open(dir));
    expect(store.load()).toBeUndefined();
    const states = [factoryState(image(1))];
    states.push(install(states[0], image(2)));
    states.push(planBoot(states[1], 3).state);
    for (const state of states) {
      store.save(state);
      dbs.pop()!.close();
      store = new SlotStore(open(dir));
      expect(store.load()).toEqual(state);
    }
  });

  it('refuses to store an inconsistent state and keeps the previous one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'slot-store-'));
    dirs.push(dir);
    const store = new SlotStore(open(dir));
    const good = factoryState(image(1));
    store.save(good);
    expect(() => store.save({ ...good, trial: 'b' })).toThrow(/holds no image/);
    expect(() => store.save({ ...good, trial: 'a' })).toThrow(/equals primary/);
    expect(store.load()).toEqual(good);
  });

  it('writes slot records and pointers in one transaction', () => {
    const dir = mkdtempSync(join(tmpdir(), 'slot-store-'));
    dirs.push(dir);
    const db = open(dir);
    const store = new SlotStore(db);
    store.save(factoryState(image(1)));
    // A failure inside the transaction (the state row's CHECK) must leave the slot row unwritten too.
    db.exec(`CREATE TRIGGER fail_state BEFORE UPDATE ON firmware_state BEGIN SELECT RAISE(ABORT, 'injected'); END`);
    expect(() => store.save(install(factoryState(image(1)), image(2)))).toThrow(/injected/);
    db.exec('DROP TRIGGER fail_state');
    expect(store.load()).toEqual(factoryState(image(1)));
  });
});
