/**
 * The user data field: a string the user keeps on the unit, with its policy on configuration reset.
 * Value and policy are one transaction in the kv table, so they never disagree after power loss.
 */
import { type GroupCommit, groupCommitOf, KV_KEYS, type KvStore } from '../store/index.js';

export const USER_DATA_MAX_BYTES = 131_072;
export const USER_DATA_POLICIES = ['clear_on_config_delete', 'keep_on_config_delete'] as const;
export type UserDataPolicy = (typeof USER_DATA_POLICIES)[number];
export const DEFAULT_USER_DATA_POLICY: UserDataPolicy = 'clear_on_config_delete';

/**
 * Every group-committed write of the field (put, delete) sets both its rows, value and policy,
 * whatever they were: of several in one batch only the last needs to run (GroupCommit.replace).
 */
const USER_DATA_WRITE = 'user-data';

export interface UserData {
  value: string;
  policy: UserDataPolicy;
}

export class UserDataStore {
  /** Writes are group-committed: concurrent writers share one disk flush (src/store/group-commit.ts). */
  private readonly group: GroupCommit;

  constructor(private readonly kv: KvStore) {
    this.group = groupCommitOf(kv.db);
  }

  /** Resolves once every write made so far is durable, or undefined when they all are: read after it. */
  settled(): Promise<void> | undefined {
    return this.group.pending();
  }

  get(): UserData {
    return {
      value: this.kv.get<string>(KV_KEYS.userDataValue) ?? '',
      policy: this.kv.get<UserDataPolicy>(KV_KEYS.userDataPolicy) ?? DEFAULT_USER_DATA_POLICY,
    };
  }

  /** Stores a value the route checked (text within `USER_DATA_MAX_BYTES`); resolves once durable. */
  async put(value: string, policy: UserDataPolicy = DEFAULT_USER_DATA_POLICY): Promise<void> {
    await this.group.replace(USER_DATA_WRITE, () => {
      this.kv.set(KV_KEYS.userDataValue, value);
      this.kv.set(KV_KEYS.userDataPolicy, policy);
    });
  }

  /** Resolves once durable. */
  delete(): Promise<void> {
    return this.group.replace(USER_DATA_WRITE, () => this.deleteNow());
  }

  private deleteNow(): void {
    this.kv.delete(KV_KEYS.userDataValue);
    this.kv.delete(KV_KEYS.userDataPolicy);
  }

  /** Part of the configuration reset transaction: removes the value unless its policy keeps it. */
  clearOnConfigDelete(): void {
    if (this.get().policy === 'clear_on_config_delete') this.kv.db.transaction(() => this.deleteNow())();
  }
}
