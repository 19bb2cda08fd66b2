/**
 * How the HAL and device-core services report alert conditions. The device core's alert log
 * implements it; producers (data plane, telemetry thresholds, firmware, fault injection) only
 * see this interface. Ids are catalogue ids such as "0x01000015" (src/model/alert-catalogue.ts).
 */
export interface AlertSink {
  /** The condition holds. Idempotent while the alert is already active. `vars` fill the catalogue's msg_verbose template. */
  raise(id: string, vars?: Record<string, string | number>): void;
  /** The condition ended. No effect when the alert is not active. */
  clear(id: string, reason?: string): void;
}
