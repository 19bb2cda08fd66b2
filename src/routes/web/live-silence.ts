/**
 * Why a unit sends no lidar data, in words for the live view, decided from what decides it (the active
 * configuration, the unit's status and the fault-injection rules in force) so the page can say so the
 * moment it connects instead of waiting for pictures that will not come. Pure.
 */
import type { SensorConfig, UdpFaultRule } from '../../model/index.js';
import type { SensorStatus } from '../../core/index.js';

export interface Silence {
  /** What the page keys its offer on: `no-destination` offers "Stream to this computer". */
  code: 'no-destination' | 'standby' | 'port-off' | 'fault' | 'shutdown' | 'not-running';
  reason: string;
}

export interface StreamState {
  config: Readonly<SensorConfig>;
  status: SensorStatus;
  rebooting: boolean;
  udpFaultRules: readonly UdpFaultRule[];
  /** The message of the alert that shut the unit down (temperature or input voltage), if one holds. */
  shutdown?: string;
}

/** A rule that lets no lidar packet through while it lasts. */
function withholds(rule: UdpFaultRule): boolean {
  if (rule.stream === 'imu') return false;
  const a = rule.action;
  return a.type === 'stop' || a.type === 'pause' || (a.type === 'drop' && a.rate >= 1);
}

/** Null when the unit should be sending lidar packets. */
export function silenceOf(state: StreamState): Silence | null {
  const c = state.config;
  if (state.rebooting) return { code: 'not-running', reason: 'The unit is restarting: no data until it is back.' };
  if (state.shutdown)
    return {
      code: 'shutdown',
      reason: `${state.shutdown} No data until it is back within limits; it then starts again by itself.`,
    };
  if (c.operating_mode === 'STANDBY')
    return {
      code: 'standby',
      reason: 'operating_mode is STANDBY: the unit sends nothing until it is set to NORMAL.',
    };
  if (c.udp_dest === '')
    return {
      code: 'no-destination',
      reason: 'No lidar data is being sent: udp_dest is not set, so the unit does not know where to send.',
    };
  if (c.udp_port_lidar === 0)
    return { code: 'port-off', reason: 'udp_port_lidar is 0: the lidar stream is switched off.' };
  const rule = state.udpFaultRules.find(withholds);
  if (rule)
    return {
      code: 'fault',
      reason: `Fault injection withholds the lidar packets (rule ${rule.id}: ${rule.action.type} on ${rule.stream}).`,
    };
  if (state.status !== 'RUNNING')
    return { code: 'not-running', reason: `The unit is ${state.status}: no data until it is RUNNING.` };
  return null;
}
