/**
 * Restart of the simulated unit: the process is the unit, so it keeps running and the device core
 * simulates the reboot (streams stop, HTTP answers 503 with Retry-After for the reboot time, then
 * the unit boots its persisted configuration with a new initialization_id).
 */
import type { PowerHal } from '../power.js';

export function createSimPower(): PowerHal {
  return {
    rebootMode: 'in-process',
    reboot: async () => {},
    close: async () => {},
  };
}
