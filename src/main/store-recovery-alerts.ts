/**
 * What the unit says about its database after a start found it damaged (src/store/store-recovery.ts),
 * one message per outcome, the same in the log and in CONFIG_INVALID:
 *  - repaired, every row read back: a warning in the log, no alert (nothing is wrong with what it holds);
 *  - repaired with losses: CONFIG_INVALID names what is at its factory default and what was recovered;
 *  - waiting for room: CONFIG_INVALID says the unit runs read-only on what it read, what (if anything)
 *    is at its factory default meanwhile, and that it repairs the file by itself once there is room.
 */
import type { Logger } from 'pino';
import { ALERT_IDS, type AlertSink, storageCauseOf } from '../model/index.js';
import {
  crashPoint,
  KV_KEYS,
  KvStore,
  type PendingRepair,
  type RecoveryReport,
  type RepairShortage,
  type SqliteDatabase,
} from '../store/index.js';

const megabytes = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MB`;
const listOr = (items: string[], none: string) => (items.length ? items.join(', ') : none);

/**
 * A database rebuilt at this start (or by a repair that waited for room) left its report: the log
 * and, when something was lost, CONFIG_INVALID say what happened, and the report goes (a power cut
 * before that says it again).
 */
export function announceRebuilt(db: SqliteDatabase, alerts: AlertSink, log: Logger): void {
  const kv = new KvStore(db);
  const report = kv.get<RecoveryReport>(KV_KEYS.recoveryReport);
  if (!report) return;
  crashPoint('recovery-before-alert');
  const kept = `the damaged file is kept as ${report.keptAs} in the data directory and in the diagnostics dump`;
  const fields = { keptAs: report.keptAs, lost: report.lost, recovered: report.recovered };
  if (report.lost.length === 0) {
    log.warn(
      fields,
      `the database sensor.db was damaged (${report.reason}) and is repaired: every row was read back; ${kept}`,
    );
  } else {
    const reason =
      `sensor.db was damaged (${report.reason}) and is rebuilt from what could be read; ${kept}. ` +
      `Lost, now at factory defaults: ${report.lost.join(', ')}. Recovered: ${listOr(report.recovered, 'nothing')}`;
    alerts.raise(ALERT_IDS.CONFIG_INVALID, { reason });
    log.error(fields, `the database is repaired with losses: ${reason}`);
  }
  kv.delete(KV_KEYS.recoveryReport);
}

function shortageText(shortage: RepairShortage): string {
  const room = `it needs ${megabytes(shortage.needed)} free, ${megabytes(shortage.free)} are`;
  if (shortage.code === undefined || storageCauseOf(shortage) === 'full')
    return `there is no room to repair it (${room}${shortage.code ? `; the disk answered ${shortage.code}` : ''})`;
  return `the disk refused the repair (${shortage.code}; ${room})`;
}

/**
 * The database is damaged and the disk stopped its repair: CONFIG_INVALID and the log say so, and say
 * it again when the repair is done (or fails for another reason).
 */
export function announceWaitingRepair(
  pending: PendingRepair,
  db: SqliteDatabase,
  alerts: AlertSink,
  log: Logger,
): void {
  const { reason, shortage, recovered, lost, walUnread } = pending.waiting;
  const detail = (current: RepairShortage) =>
    `sensor.db is damaged (${reason}) and ${shortageText(current)}: the unit runs read-only on what it could read ` +
    'and answers changes 507; it is kept where it is and repaired without a restart once the data partition has room. ' +
    `${lost.length ? `At factory defaults until then: ${lost.join(', ')}` : 'Meanwhile nothing is at its factory default'}` +
    `${walUnread ? '; what its write-ahead log holds is read at the repair' : ''}. Read: ${listOr(recovered, 'nothing')}`;
  alerts.raise(ALERT_IDS.CONFIG_INVALID, { reason: detail(shortage) });
  log.error({ lost, recovered, ...shortage }, `the database cannot be repaired now: ${detail(shortage)}`);
  let lastCode = shortage.code;
  pending.start({
    stillWaiting(now) {
      if (now.code === lastCode) return;
      lastCode = now.code;
      log.error({ ...now }, `the repair of the database was tried again and stopped: ${shortageText(now)}`);
    },
    repaired() {
      alerts.clear(ALERT_IDS.CONFIG_INVALID, 'the database is repaired');
      announceRebuilt(db, alerts, log);
    },
    failed(error) {
      log.error({ err: error }, 'the repair of the database failed; the unit stays read-only until it is restarted');
    },
  });
}
