/**
 * Persists the firmware slot state (src/model/slot-state.ts). Every save is one SQLite transaction, so a
 * power loss leaves either the previous state or the new one, never a mix of slot records and
 * pointers.
 */
import type { SqliteDatabase } from '../../store/index.js';
import { SLOT_NAMES, stateProblem, type SlotImage, type SlotName, type SlotState } from '../../model/index.js';

interface SlotRow {
  slot: SlotName;
  image_rev: string;
  payload_sha256: string;
  image_length: number;
  manifest: string;
}

interface StateRow {
  primary_slot: SlotName;
  trial_slot: SlotName | null;
  boot_attempts: number;
}

export class SlotStore {
  private readonly selectSlots;
  private readonly selectState;
  private readonly upsertSlot;
  private readonly deleteSlot;
  private readonly upsertState;
  private readonly saveTx;

  constructor(db: SqliteDatabase) {
    this.selectSlots = db.prepare<[], SlotRow>(
      'SELECT slot, image_rev, payload_sha256, image_length, manifest FROM firmware_slot',
    );
    this.selectState = db.prepare<[], StateRow>(
      'SELECT primary_slot, trial_slot, boot_attempts FROM firmware_state WHERE id = 1',
    );
    this.upsertSlot = db.prepare<[SlotName, string, string, number, string]>(
      `INSERT INTO firmware_slot (slot, image_rev, payload_sha256, image_length, manifest) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT(slot) DO UPDATE SET image_rev = excluded.image_rev, payload_sha256 = excluded.payload_sha256,
         image_length = excluded.image_length, manifest = excluded.manifest`,
    );
    this.deleteSlot = db.prepare<[SlotName]>('DELETE FROM firmware_slot WHERE slot = ?');
    this.upsertState = db.prepare<[SlotName, SlotName | null, number]>(
      `INSERT INTO firmware_state (id, primary_slot, trial_slot, boot_attempts) VALUES (1, ?, ?, ?)
       ON CONFLICT(id) DO UPDATE SET primary_slot = excluded.primary_slot, trial_slot = excluded.trial_slot,
         boot_attempts = excluded.boot_attempts`,
    );
    this.saveTx = db.transaction((state: SlotState) => {
      for (const slot of SLOT_NAMES) {
        const image = state.slots[slot];
        if (image)
          this.upsertSlot.run(
            slot,
            image.imageRev,
            image.payloadSha256,
            image.imageLength,
            JSON.stringify(image.manifest),
          );
        else this.deleteSlot.run(slot);
      }
      this.upsertState.run(state.primary, state.trial, state.bootAttempts);
    });
  }

  /** The stored state, or undefined on a unit that has never booted. Throws if what is stored is inconsistent. */
  load(): SlotState | undefined {
    const row = this.selectState.get();
    if (!row) return undefined;
    const slots: Record<SlotName, SlotImage | null> = { a: null, b: null };
    for (const r of this.selectSlots.all()) {
      slots[r.slot] = {
        imageRev: r.image_rev,
        payloadSha256: r.payload_sha256,
        imageLength: r.image_length,
        manifest: JSON.parse(r.manifest) as Record<string, string>,
      };
    }
    const state: SlotState = {
      slots,
      primary: row.primary_slot,
      trial: row.trial_slot,
      bootAttempts: row.boot_attempts,
    };
    const problem = stateProblem(state);
    if (problem) throw new Error(`stored firmware slot state is inconsistent: ${problem}`);
    return state;
  }

  /** Stores `state` in one transaction. */
  save(state: SlotState): void {
    const problem = stateProblem(state);
    if (problem) throw new Error(`refusing to store an inconsistent firmware slot state: ${problem}`);
    this.saveTx(state);
  }
}
