import type { Migration } from './migration.js';

/**
 * Firmware A/B slot state (src/core/firmware/slot-store.ts): what each slot holds and which one is
 * committed, on trial and how often the trial has been booted. Always written in one transaction.
 */
export const firmwareSlots: Migration = {
  version: 3,
  name: 'firmware-slots',
  up(db) {
    db.exec(`
      CREATE TABLE firmware_slot (
        slot           TEXT PRIMARY KEY CHECK (slot IN ('a', 'b')),
        image_rev      TEXT NOT NULL,
        payload_sha256 TEXT NOT NULL CHECK (length(payload_sha256) = 64),
        image_length   INTEGER NOT NULL CHECK (image_length > 0),
        manifest       TEXT NOT NULL
      ) STRICT;
      CREATE TABLE firmware_state (
        id            INTEGER PRIMARY KEY CHECK (id = 1),
        primary_slot  TEXT NOT NULL CHECK (primary_slot IN ('a', 'b')),
        trial_slot    TEXT CHECK (trial_slot IN ('a', 'b') AND trial_slot <> primary_slot),
        boot_attempts INTEGER NOT NULL CHECK (boot_attempts >= 0)
      ) STRICT;
    `);
  },
};
