/**
 * The alerts' public entry: the alert log, its store and queries.
 */
export { AlertLog } from './alert-log.js';
export { parseAlertQuery, renderAlerts } from './alert-query.js';
export { createPersistentAlertLog } from './persistent-alert-log.js';
export { ALERT_MODES } from './alert-query.js';
