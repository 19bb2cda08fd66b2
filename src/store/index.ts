/**
 * The store's public entry: the SQLite database (checked and, when damaged, rebuilt at open), the
 * key-value table, the factory data file, the data-dir lock, the crash points of the power-loss harness.
 */
export { crashPoint, CRASH_POINTS, RECOVERY_CRASH_POINTS } from './crash-point.js';
export type { CrashPoint } from './crash-point.js';
export { DataDirInUseError, LOCK_FILE, PID_FILE, lockDataDir } from './data-dir-lock.js';
export type { DataDirLock } from './data-dir-lock.js';
export { DATABASE_FILE, openDatabase, openStore } from './database.js';
export type { OpenedStore, SqliteDatabase } from './database.js';
export type { PendingRepair, WaitingRepair } from './pending-repair.js';
export { diskIsFull } from './free-space.js';
export { FACTORY_FILE, readFactoryFile, writeFactoryFile } from './factory-file.js';
export type { FactoryFile } from './factory-file.js';
export { GroupCommit, closeGroupCommit, groupCommitOf } from './group-commit.js';
export { KV_KEYS, KvStore } from './kv-store.js';
export { storageGateOf } from './storage-gate.js';
export type { StorageFault, StorageGate } from './storage-gate.js';
export { damagedFiles, keptDamagedFiles } from './damaged-files.js';
export type { RecoveryReport, RepairShortage } from './store-recovery.js';
