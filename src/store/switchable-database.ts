/**
 * A database handle whose connection can be replaced while the unit runs: a unit that started
 * read-only on what it could read of a damaged database (src/store/pending-repair.ts) moves to the
 * repaired file once there is room to write it, without a restart. Every store keeps the handle and
 * the statements and transactions it prepared from it; each of those is prepared again on the new
 * connection the first time it is used after the switch (the SQL text is the same, the schema too).
 * Only a unit in that state runs on this handle; every other start gets the plain connection.
 */
import type Database from 'better-sqlite3';

type Connection = Database.Database;
type Statement = Database.Statement;

/** Statement methods that return the statement itself: replayed on the new connection's statement. */
const CHAINED = new Set(['pluck', 'expand', 'raw', 'safeIntegers', 'bind']);

export interface SwitchableDatabase {
  /** The handle every store keeps. */
  readonly db: Connection;
  /** From now on `db` works on `next`; the previous connection is closed. */
  switchTo(next: Connection): void;
}

/** A handle on `initial`; its `name` is always `path`, the file the unit's data lives in. */
export function switchableDatabase(initial: Connection, path: string): SwitchableDatabase {
  let current = initial;
  let generation = 0;

  const statement = (source: string): Statement => {
    let prepared = current.prepare(source);
    let preparedIn = generation;
    const chained: [string, unknown[]][] = [];
    const fresh = (): Statement => {
      if (preparedIn !== generation) {
        prepared = current.prepare(source);
        for (const [method, args] of chained) (prepared[method as 'raw'] as (...a: unknown[]) => unknown)(...args);
        preparedIn = generation;
      }
      return prepared;
    };
    const handle: Statement = new Proxy(prepared, {
      get(_target, property) {
        const target = fresh();
        const value = Reflect.get(target, property, target);
        if (typeof value !== 'function') return value;
        if (typeof property === 'string' && CHAINED.has(property))
          return (...args: unknown[]) => {
            value.apply(target, args);
            chained.push([property, args]);
            return handle;
          };
        return value.bind(target);
      },
    });
    return handle;
  };

  const transaction = (fn: (...args: never[]) => unknown) => {
    const byConnection = new WeakMap<Connection, (...args: unknown[]) => unknown>();
    const wrapped = (...args: unknown[]) => {
      let tx = byConnection.get(current);
      if (!tx) byConnection.set(current, (tx = current.transaction(fn as (...a: unknown[]) => unknown)));
      return tx(...args);
    };
    return wrapped;
  };

  const db = new Proxy(initial, {
    get(_target, property) {
      if (property === 'name') return path;
      if (property === 'prepare') return statement;
      if (property === 'transaction') return transaction;
      const value = Reflect.get(current, property, current);
      return typeof value === 'function' ? value.bind(current) : value;
    },
  });

  return {
    db,
    switchTo(next) {
      if (current.inTransaction) throw new Error('cannot switch the database inside a transaction');
      const previous = current;
      current = next;
      generation++;
      previous.close();
    },
  };
}
