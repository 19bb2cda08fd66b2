/**
 * Every schema migration, by version. Each subsystem adds its own numbered file and one line here.
 * Numbers: 1 foundation; 2 alerts; 3 firmware slots; further ones take the next free number.
 */
import type { Migration } from './migration.js';
import { foundation } from './001-foundation.js';
import { alerts } from './002-alerts.js';
import { firmwareSlots } from './003-firmware-slots.js';

export const MIGRATIONS: readonly Migration[] = [foundation, alerts, firmwareSlots];
