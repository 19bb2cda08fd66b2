/**
 * The alert catalogue: every alert the sensor can raise, described once (id, category, level,
 * message, verbose message template, and what ends its condition).
 *
 * Ids, categories and levels follow real units (docs/http-api.md, Alerts); the OVERTEMP ids are not
 * public, so they are allocated here in the free range 0x01000060.. . Message texts are our own.
 */

export type AlertLevel = 'NOTICE' | 'WARNING' | 'ERROR';

/**
 * What ends an alert's condition:
 * - `run`: the condition belongs to one run of the data plane (a socket, a destination, a
 *   configuration value). A reinitialization ends that run, so reinit clears these alerts; the
 *   new run raises them again if the fault persists.
 * - `measured`: the condition is a measurement of the unit or its environment (supply voltage,
 *   temperature, link). A reinit does not change it; the monitor that raised it clears it when
 *   the measurement recovers.
 */
export type AlertScope = 'run' | 'measured';

export interface AlertDefinition {
  /** Hexadecimal string, "0x0100xxxx". */
  readonly id: string;
  readonly category: string;
  readonly level: AlertLevel;
  readonly msg: string;
  /** `{name}` placeholders are filled from the variables passed to AlertSink.raise. */
  readonly msgVerbose: string;
  readonly scope: AlertScope;
}

export const ALERT_IDS = {
  ETHERNET_LINK_BAD: '0x01000011',
  LIDAR_PORT_UNREACHABLE: '0x01000015',
  LIDAR_SEND_FAILED: '0x01000016',
  LIDAR_SOCKET_ERROR: '0x01000017',
  IMU_PORT_UNREACHABLE: '0x01000018',
  IMU_SEND_FAILED: '0x01000019',
  IMU_SOCKET_ERROR: '0x0100001A',
  INPUT_VOLTAGE_LOW_WARNING: '0x0100002E',
  INPUT_VOLTAGE_LOW_ERROR: '0x0100002F',
  INPUT_VOLTAGE_HIGH_WARNING: '0x01000030',
  INPUT_VOLTAGE_HIGH_ERROR: '0x01000031',
  LIDAR_SOCKET_OPEN_FAILED: '0x01000032',
  LIDAR_DEST_UNRESOLVED: '0x01000033',
  LIDAR_NETWORK_UNREACHABLE: '0x01000035',
  IMU_DEST_UNRESOLVED: '0x01000037',
  IMU_NETWORK_UNREACHABLE: '0x01000039',
  WARMUP_SLOW: '0x0100004E',
  PHASE_LOCK_OFFSET: '0x01000050',
  PHASE_LOCK_FAILED: '0x01000051',
  CONFIG_INVALID: '0x01000052',
  WARMUP_FAILED: '0x01000053',
  UNEXPECTED_HARDWARE: '0x01000054',
  OVERTEMP_WARNING: '0x01000060',
  OVERTEMP_ERROR: '0x01000061',
  FIRMWARE_ROLLBACK: '0x01000062',
} as const;

export type AlertId = (typeof ALERT_IDS)[keyof typeof ALERT_IDS];

const A = ALERT_IDS;

export const ALERT_CATALOGUE: readonly AlertDefinition[] = [
  {
    id: A.ETHERNET_LINK_BAD,
    category: 'ETHERNET_LINK_BAD',
    level: 'WARNING',
    msg: 'The Ethernet link runs below 1 Gbps full duplex.',
    msgVerbose:
      'The link negotiated {speed} Mbps {duplex} duplex; lidar data needs 1000 Mbps full duplex. Check the cable and the switch port.',
    scope: 'measured',
  },
  {
    id: A.LIDAR_PORT_UNREACHABLE,
    category: 'UDP_TRANSMISSION',
    level: 'WARNING',
    msg: 'The lidar data destination reports that nothing listens on its port; check udp_dest and udp_port_lidar.',
    msgVerbose:
      'The host {host} answered lidar packets sent to {host}:{port} with ICMP port unreachable. Start the client, or set udp_dest and udp_port_lidar to where it listens.',
    scope: 'run',
  },
  {
    id: A.LIDAR_SEND_FAILED,
    category: 'UDP_TRANSMISSION',
    level: 'WARNING',
    msg: 'A lidar packet could not be sent to the destination host.',
    msgVerbose: 'Sending lidar data to {host}:{port} failed with {error} (network down or no route to the host).',
    scope: 'run',
  },
  {
    id: A.LIDAR_SOCKET_ERROR,
    category: 'UDP_TRANSMISSION',
    level: 'WARNING',
    msg: 'An unexpected error stopped lidar data transmission; the socket was closed.',
    msgVerbose: 'The lidar socket to {host}:{port} failed with {error} and was closed.',
    scope: 'run',
  },
  {
    id: A.IMU_PORT_UNREACHABLE,
    category: 'UDP_TRANSMISSION',
    level: 'WARNING',
    msg: 'The IMU data destination reports that nothing listens on its port; check udp_dest and udp_port_imu.',
    msgVerbose:
      'The host {host} answered IMU packets sent to {host}:{port} with ICMP port unreachable. Start the client, or set udp_dest and udp_port_imu to where it listens.',
    scope: 'run',
  },
  {
    id: A.IMU_SEND_FAILED,
    category: 'UDP_TRANSMISSION',
    level: 'WARNING',
    msg: 'An IMU packet could not be sent to the destination host.',
    msgVerbose: 'Sending IMU data to {host}:{port} failed with {error} (network down or no route to the host).',
    scope: 'run',
  },
  {
    id: A.IMU_SOCKET_ERROR,
    category: 'UDP_TRANSMISSION',
    level: 'WARNING',
    msg: 'An unexpected error stopped IMU data transmission; the socket was closed.',
    msgVerbose: 'The IMU socket to {host}:{port} failed with {error} and was closed.',
    scope: 'run',
  },
  {
    id: A.INPUT_VOLTAGE_LOW_WARNING,
    category: 'INPUT_VOLTAGE',
    level: 'WARNING',
    msg: 'The input voltage is close to the lower limit.',
    msgVerbose:
      'Input voltage {voltage_mv} mV is below the warning level of {threshold_mv} mV. Check the power supply and cable.',
    scope: 'measured',
  },
  {
    id: A.INPUT_VOLTAGE_LOW_ERROR,
    category: 'INPUT_VOLTAGE',
    level: 'ERROR',
    msg: 'The input voltage is too low; the unit is shutting down.',
    msgVerbose: 'Input voltage {voltage_mv} mV is below the minimum of {threshold_mv} mV the unit can run on.',
    scope: 'measured',
  },
  {
    id: A.INPUT_VOLTAGE_HIGH_WARNING,
    category: 'INPUT_VOLTAGE',
    level: 'WARNING',
    msg: 'The input voltage is close to the upper limit.',
    msgVerbose:
      'Input voltage {voltage_mv} mV is above the warning level of {threshold_mv} mV. Check the power supply.',
    scope: 'measured',
  },
  {
    id: A.INPUT_VOLTAGE_HIGH_ERROR,
    category: 'INPUT_VOLTAGE',
    level: 'ERROR',
    msg: 'The input voltage is too high; the unit is shutting down.',
    msgVerbose: 'Input voltage {voltage_mv} mV is above the maximum of {threshold_mv} mV the unit tolerates.',
    scope: 'measured',
  },
  {
    id: A.LIDAR_SOCKET_OPEN_FAILED,
    category: 'UDP_CONNECT',
    level: 'WARNING',
    msg: 'The lidar UDP socket could not be opened.',
    msgVerbose: 'Opening the lidar socket towards {host}:{port} failed with {error}.',
    scope: 'run',
  },
  {
    id: A.LIDAR_DEST_UNRESOLVED,
    category: 'UDP_CONNECT',
    level: 'WARNING',
    msg: 'The lidar destination address could not be resolved.',
    msgVerbose: 'The name {host} in udp_dest did not resolve to an address ({error}).',
    scope: 'run',
  },
  {
    id: A.LIDAR_NETWORK_UNREACHABLE,
    category: 'UDP_CONNECT',
    level: 'WARNING',
    msg: 'The network of the lidar destination is unreachable.',
    msgVerbose: 'No route leads to {host}:{port} for lidar data ({error}).',
    scope: 'run',
  },
  {
    id: A.IMU_DEST_UNRESOLVED,
    category: 'UDP_CONNECT',
    level: 'WARNING',
    msg: 'The IMU destination address could not be resolved.',
    msgVerbose: 'The name {host} in udp_dest did not resolve to an address ({error}).',
    scope: 'run',
  },
  {
    id: A.IMU_NETWORK_UNREACHABLE,
    category: 'UDP_CONNECT',
    level: 'WARNING',
    msg: 'The network of the IMU destination is unreachable.',
    msgVerbose: 'No route leads to {host}:{port} for IMU data ({error}).',
    scope: 'run',
  },
  {
    id: A.WARMUP_SLOW,
    category: 'WARMUP_ISSUE',
    level: 'WARNING',
    msg: 'Warm-up is taking longer than expected.',
    msgVerbose: 'The unit has been warming up for {elapsed_s} s at {temperature_c} °C.',
    scope: 'run',
  },
  {
    id: A.PHASE_LOCK_OFFSET,
    category: 'MOTOR_CONTROL',
    level: 'WARNING',
    msg: 'The phase lock offset error is above its threshold.',
    msgVerbose: 'The motor phase differs from phase_lock_offset by {error_mdeg} millidegrees.',
    scope: 'run',
  },
  {
    id: A.PHASE_LOCK_FAILED,
    category: 'MOTOR_CONTROL',
    level: 'ERROR',
    msg: 'Phase locking failed repeatedly.',
    msgVerbose: 'The motor could not hold phase lock after {attempts} attempts.',
    scope: 'run',
  },
  {
    id: A.CONFIG_INVALID,
    category: 'CONFIG_INVALID',
    level: 'ERROR',
    msg: 'A configuration value is invalid or out of bounds.',
    msgVerbose: 'Stored data: {reason}.',
    scope: 'run',
  },
  {
    id: A.WARMUP_FAILED,
    category: 'WARMUP_ISSUE',
    level: 'ERROR',
    msg: 'Warm-up failed; the unit is shutting down.',
    msgVerbose: 'The unit did not reach its operating temperature after {elapsed_s} s (now {temperature_c} °C).',
    scope: 'run',
  },
  {
    id: A.UNEXPECTED_HARDWARE,
    category: 'INTERNAL_FAULT',
    level: 'NOTICE',
    msg: 'The hardware configuration is not the expected one.',
    msgVerbose: 'Found {found} where {expected} was expected.',
    scope: 'measured',
  },
  {
    id: A.OVERTEMP_WARNING,
    category: 'OVERTEMP',
    level: 'WARNING',
    msg: 'The internal temperature is close to its limit.',
    msgVerbose:
      'Internal temperature {temperature_c} °C is at or above the warning level of {threshold_c} °C. Improve cooling or airflow around the unit.',
    scope: 'measured',
  },
  {
    id: A.OVERTEMP_ERROR,
    category: 'OVERTEMP',
    level: 'ERROR',
    msg: 'The internal temperature is too high; the unit is shutting down.',
    msgVerbose: 'Internal temperature {temperature_c} °C is at or above the shutdown level of {threshold_c} °C.',
    scope: 'measured',
  },
  {
    // Raised by src/core/firmware/firmware-manager.ts; cleared when a later update is committed.
    id: A.FIRMWARE_ROLLBACK,
    category: 'FIRMWARE_UPDATE',
    level: 'WARNING',
    msg: 'A firmware update did not boot healthy; the unit went back to the previous firmware.',
    msgVerbose:
      'Firmware {image_rev} was abandoned ({reason}); the unit runs {previous_image_rev} again. Check the image and upload it again.',
    scope: 'measured',
  },
];

const BY_ID = new Map<string, AlertDefinition>(ALERT_CATALOGUE.map((d) => [d.id, d]));

export function isKnownAlertId(id: string): boolean {
  return BY_ID.has(id);
}

/** The definition of `id`; throws for an id that is not in the catalogue (a programming error of the caller). */
export function alertDefinition(id: string): AlertDefinition {
  const definition = BY_ID.get(id);
  if (!definition) throw new Error(`alert id ${id} is not in the alert catalogue`);
  return definition;
}

/** Fills `{name}` placeholders; a placeholder without a value stays visible as `{name}` so the gap is obvious to support. */
export function renderVerbose(template: string, vars: Readonly<Record<string, string | number>> = {}): string {
  return template.replace(/\{([a-z_]+)\}/g, (whole, name: string) => (name in vars ? String(vars[name]) : whole));
}
