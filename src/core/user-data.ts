/**
 * The user data field: a string the user keeps on the unit, with its policy on configuration reset.
 * Value and policy are one transaction in the kv table, so they never disagree after power loss.
 */
import { badRequest, payloadTooLarge } from '../model/index.js';
import { type GroupCommit, groupCommitOf, KV_KEYS, type KvStore } from '../store/index.js';

export const USER_DATA_MAX_BYTES = 131_072;
export const USER_DATA_POLICIES = ['clear_on_config_delete', 'keep_on_config_delete'] as const;
export type UserDataPolicy = (typeof USER_DATA_POLICIES)[number];
export const DEFAULT_USER_DATA_POLICY: UserDataPolicy = 'clear_on_config_delete';

/**
 * "Binary" content, which the field refuses: C0 control characters other than tab, line feed and
 * carriage return; DEL and the C1 controls (U+007F-U+009F); and unpaired UTF-16 surrogates, which
 * are not Unicode text at all. Everything else, any script and emoji included, is text.
 */
// Without the `u` flag the pattern sees UTF-16 code units, so it can find unpaired surrogates.
const BINARY_CODE_UNITS =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

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

  /** Stores a value `userDataValue` accepted; resolves once durable. */
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

/** The user data a PUT may store: a JSON string of text within the size limit; else a 400/413 ApiError. */
export function userDataValue(value: unknown): string {
  if (typeof value !== 'string')
    throw badRequest(
      `user data must be a JSON string; got ${value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value}`,
    );
  const bytes = Buffer.byteLength(value, 'utf8');
  if (bytes > USER_DATA_MAX_BYTES)
    throw payloadTooLarge(`user data is ${bytes} bytes of UTF-8; the limit is ${USER_DATA_MAX_BYTES}`);
  const binary = BINARY_CODE_UNITS.exec(value);
  if (binary) {
    const code = binary[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
    throw badRequest(
      `user data must be text: it holds binary content (U+${code} at character ${binary.index}); control characters other than tab, line feed and carriage return, and unpaired surrogates, are refused`,
    );
  }
  return value;
}
