/**
 * The store's public entry: the SQLite database, the key-value table, the data-dir lock.
 */
export { DataDirInUseError, LOCK_FILE, PID_FILE, lockDataDir } from './data-dir-lock.js';
export type { DataDirLock } from './data-dir-lock.js';
export { openDatabase } from './database.js';
export type { SqliteDatabase } from './database.js';
export { GroupCommit, closeGroupCommit, groupCommitOf } from './group-commit.js';
export { KV_KEYS, KvStore } from './kv-store.js';
