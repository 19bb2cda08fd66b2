/** The keys of the kv table (src/store/kv-store.ts). Imports nothing, so the start-up check can name what each holds. */
export const KV_KEYS = {
  /** Where versions before the factory data file (src/store/factory-file.ts) kept the serial. */
  legacyIdentity: 'unit.identity',
  userDataValue: 'user_data.value',
  userDataPolicy: 'user_data.policy',
  ipv4Override: 'network.ipv4_override',
  speedOverride: 'network.speed_override',
  ptpProfile: 'time.ptp_profile',
  /** Zone Monitor (firmware 3.2): the staged and the active zone set zip (base64), and the live zone ids. */
  zoneStaged: 'zone_monitor.staged',
  zoneActive: 'zone_monitor.active',
  zoneLiveIds: 'zone_monitor.live_ids',
  /** A stored active set the SDK cannot read, set aside at start: { zip (base64), problems, at } (the dump carries it). */
  zoneSetAside: 'zone_monitor.set_aside',
  /** What the last rebuild of a damaged database recovered and lost, until the unit has raised its alert. */
  recoveryReport: 'store.recovery',
} as const;
