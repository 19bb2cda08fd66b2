import type { Logger } from 'pino';
import type { SqliteDatabase } from '../store/index.js';
import { AlertLog } from './alert-log.js';
import { SqliteAlertLogStore } from './alert-store-sqlite.js';

/**
 * The unit's alert log: persisted in its database and mirrored to the server log (one line per
 * trigger or clear), so the diagnostics dump's recent log shows alerts in context.
 */
export function createPersistentAlertLog(db: SqliteDatabase, log: Logger, firstCursor?: number): AlertLog {
  const alerts = new AlertLog({
    store: new SqliteAlertLogStore(db),
    firstCursor,
    onError: (error) => log.error({ err: error }, 'alert log error'),
  });
  alerts.subscribe(() => {
    const entry = alerts.latest();
    if (!entry) return;
    // `alert_level`, not `level`: pino's own numeric level is `level`, and log tools read the last one.
    const fields = {
      alert: entry.id,
      category: entry.category,
      alert_level: entry.level,
      cursor: entry.cursor,
      detail: entry.msg_verbose,
    };
    if (entry.active) log.warn(fields, `alert raised: ${entry.msg}`);
    else log.info(fields, `alert cleared: ${entry.msg}`);
  });
  return alerts;
}
