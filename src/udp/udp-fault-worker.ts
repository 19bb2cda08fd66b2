/**
 * The emitter worker's side of UDP fault rules: installs a filter for the current rules (or none).
 */
import type { UdpFaultRule } from '../model/index.js';
import { udpFaultHook, UdpFaultFilter, type UdpFaultCount } from './udp-fault-filter.js';

export function setUdpFaultRules(
  rules: UdpFaultRule[],
  report: (counts: UdpFaultCount[], spent: string[]) => void,
): void {
  const previous = udpFaultHook.filter;
  const held = previous?.close() ?? [];
  // A packet a removed reorder rule holds still goes out after its successor.
  const next = new UdpFaultFilter(rules, report, previous?.counts(), held);
  udpFaultHook.filter = next.idle ? null : next;
  if (next.idle) next.close();
}
