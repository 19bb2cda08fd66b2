/**
 * The fault plane reaches the unit only through the HAL's fault port and the core's fault controls: a HAL
 * part that offers no fault piece (as a real unit's interface) makes the faults that need it a 409 naming
 * why, while the others still work.
 */
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FaultPlane } from '../../src/faults/fault-plane.js';
import { FAST_TIMING } from '../../src/faults/index.js';
import type { NetworkHal } from '../../src/hal/types.js';
import { faultPort } from '../../src/hal/faults.js';
import { createTestSensor, removeDir, type TestSensor } from '../helpers/test-sensor.js';

let unit: TestSensor;
let plane: FaultPlane;

/** The simulated interface without its fault piece, as a real interface is. */
function realInterface(sim: NetworkHal): NetworkHal {
  return {
    facts: () => sim.facts(),
    applyIpv4Override: (cidr) => sim.applyIpv4Override(cidr),
    applySpeedOverride: (speed) => sim.applySpeedOverride(speed),
    close: () => sim.close(),
  };
}

beforeAll(async () => {
  unit = await createTestSensor({ hal: (sim) => ({ ...sim, network: realInterface(sim.network) }) });
  plane = new FaultPlane(unit, { log: pino({ level: 'silent' }), timing: FAST_TIMING });
});

afterAll(async () => {
  plane.close();
  await unit.close();
  removeDir(unit.dataDir);
});

const unitRule = (action: object) => ({ selector: { plane: 'unit' }, action, lifetime: {} });

it('collects what each part offers', () => {
  const port = faultPort(unit.hal);
  expect(port.link).toBeUndefined();
  expect(port.streams).toBeDefined();
  expect(port.time).toBeDefined();
  expect(port.telemetry).toBeDefined();
  expect(port.firmwareBoot).toBeDefined();
});

it('refuses a fault the port does not offer, naming why, and adds nothing', () => {
  expect(() => plane.add(unitRule({ type: 'link_down' }))).toThrow(/link_down fault needs the simulated unit/);
  expect(plane.list().rules).toEqual([]);
});

it('still runs the faults the port offers', async () => {
  const { id } = plane.add(unitRule({ type: 'ptp_grandmaster' }));
  const ptp = (await unit.app.inject({ url: '/api/v1/time/ptp' })).json();
  expect(ptp.port_data_set.port_state).toBe('SLAVE');
  plane.remove(id);
  expect((await unit.app.inject({ url: '/api/v1/time/ptp' })).json().port_data_set.port_state).toBe('LISTENING');
});
