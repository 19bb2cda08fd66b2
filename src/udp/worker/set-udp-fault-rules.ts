/**
 * The emitter worker's side of UDP fault rules: installs a filter for a unit's current rules (or none).
 */
import type { UdpFaultRule } from '../../model/index.js';
import type { UdpFaultCount } from '../contract/udp-fault-counts.js';
import { UdpFaultFilter, type UdpFaultHook } from './udp-fault-filter.js';

export function setUdpFaultRules(
  hook: UdpFaultHook,
  rules: UdpFaultRule[],
  report: (counts: UdpFaultCount[], spent: string[]) => void,
): void {
  const previous = hook.filter;
  const held = previous?.close() ?? [];
  // A packet a removed reorder rule holds still goes out after its successor.
  const next = new UdpFaultFilter(rules, report, previous?.counts(), held);
  next.owner = hook;
  hook.filter = next.idle ? null : next;
  if (next.idle) next.close();
}
