/**
 * The unit's power state (src/core/power-state.ts): restart and reboot, the shutdown a shutdown-level alert
 * forces and the recovery after it, and the thermal header bytes; with a fake HAL and firmware.
 */
import { describe, expect, it } from 'vitest';
import { ConfigState, defaultConfig } from '../../src/config/index.js';
import { PowerState } from '../../src/core/power-state.js';
import { SerialQueue } from '../../src/core/serial-queue.js';
import { packThermalHeader, thermalHeader } from '../../src/core/shutdown-guard.js';
import { TELEMETRY_THRESHOLDS } from '../../src/core/telemetry-monitor.js';
import { UnitRun } from '../../src/core/unit-run.js';
import { ALERT_IDS, ApiError, findProduct } from '../../src/model/index.js';
import { fakeHal, recordingEvents, silentLog } from './part-fakes.js';

function setUp(options: { rebootMode?: 'in-process' | 'process-exit'; trial?: boolean } = {}) {
  const { hal, calls } = fakeHal({ rebootMode: options.rebootMode });
  const { events, told } = recordingEvents();
  const configs = new ConfigState(defaultConfig());
  const active = new Set<string>();
  const queue = new SerialQueue();
  let power: PowerState | undefined;
  const run = new UnitRun({
    hal: hal as never,
    alerts: { clearForReinit: () => {}, flags: () => 0 },
    product: findProduct('OS-1-128')!,
    serialNumber: () => '122201000123',
    configs,
    events,
    log: silentLog,
    shutDown: () => power?.shutdownAlert !== undefined,
  });
  const firmware = {
    boots: 0,
    confirmed: 0,
    async boot(callbacks: { starting(kind: 'normal' | 'trial'): void }) {
      firmware.boots++;
      callbacks.starting(options.trial ? 'trial' : 'normal');
      return {} as never;
    },
    async confirmHealthy() {
      firmware.confirmed++;
      return true;
    },
  };
  let powerOns = 0;
  power = new PowerState({
    hal: hal as never,
    alerts: { isActive: (id) => active.has(id) },
    firmware: firmware as never,
    run,
    queue,
    events,
    log: silentLog,
    rebootMs: 30,
    powerOn: () => {
      powerOns++;
      return configs.get('persisted');
    },
    activeConfig: () => configs.get('active'),
  });
  return { power, run, calls, told, events, active, queue, firmware, powerOns: () => powerOns };
}

describe('PowerState', () => {
  it('a restart makes the unit unreachable (503 with Retry-After), then boots it with a new id', async () => {
    const { power, run, calls, told, queue, firmware, powerOns, events } = setUp();
    await run.bringUp(defaultConfig());
    const before = run.initializationId;
    const statuses: string[] = [];
    events.on('status', (status) => statuses.push(status));
    const restarted = power.restart();
    expect(power.rebooting).toBe(true);
    let refusal: unknown;
    try {
      power.assertReachable();
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(ApiError);
    expect((refusal as ApiError).status).toBe(503);
    expect((refusal as ApiError).headers?.['Retry-After']).toBe('1');
    await restarted;
    await queue.idle();
    expect(told).toContain('restart');
    expect(statuses).toEqual(['INITIALIZING', 'RUNNING']);
    expect(power.rebooting).toBe(false);
    expect(() => power.assertReachable()).not.toThrow();
    expect(calls.applied[1]).toBeNull();
    expect(calls.powered[1]).toBeNull();
    expect(powerOns()).toBe(1);
    expect(firmware.boots).toBe(1);
    expect(firmware.confirmed).toBe(1);
    expect(run.initializationId).not.toBe(before);
    expect(run.status).toBe('RUNNING');
  });

  it('a restart fences the queue from its announcement: a change queued meanwhile is refused (503), one after it applied', async () => {
    const { power, run, queue } = setUp();
    await run.bringUp(defaultConfig());
    power.announceRestart();
    const refused = queue.run(() => 'applied').catch((error: unknown) => error);
    const restarted = power.restart();
    const after = queue.run(() => 'applied');
    expect(await refused).toBeInstanceOf(ApiError);
    expect(((await refused) as ApiError).status).toBe(503);
    await restarted;
    expect(await after).toBe('applied');
    expect(queue.fenced).toBe(false);
  });

  it('a reboot that ends the process hands over to the HAL and boots nothing itself', async () => {
    const { power, calls, firmware } = setUp({ rebootMode: 'process-exit' });
    await power.restart('firmware-update');
    expect(calls.reboots).toEqual(['firmware-update']);
    expect(firmware.boots).toBe(0);
  });

  it('the first boot of a new image shows UPDATING', async () => {
    const { power, events } = setUp({ trial: true });
    const statuses: string[] = [];
    events.on('status', (status) => statuses.push(status));
    await power.boot(defaultConfig());
    expect(statuses).toEqual(['UPDATING', 'INITIALIZING', 'RUNNING']);
  });

  it('a shutdown alert stops the streams (ERROR); once it clears the unit comes back with a new id', async () => {
    const { power, run, calls, active, queue } = setUp();
    // A configuration that streams: the stream plan is null without a destination.
    await run.bringUp({ ...defaultConfig(), udp_dest: '127.0.0.1' });
    const before = run.initializationId;
    active.add(ALERT_IDS.OVERTEMP_ERROR);
    power.followShutdownAlerts();
    await queue.idle();
    expect(power.shutdownAlert).toBe(ALERT_IDS.OVERTEMP_ERROR);
    expect(calls.applied.at(-1)).toBeNull();
    expect(run.status).toBe('ERROR');
    active.clear();
    power.followShutdownAlerts();
    await queue.idle();
    expect(power.shutdownAlert).toBeUndefined();
    expect(run.status).toBe('RUNNING');
    expect(run.initializationId).not.toBe(before);
    expect(calls.applied.at(-1)).toMatchObject({ initId: run.initializationId });
  });

  it("the header's thermal bytes follow the temperature, and only a change is stamped", () => {
    const { power, calls } = setUp();
    power.followSample(undefined);
    power.followSample(40);
    expect(calls.thermal).toEqual([]);
    // Between the warning and shutdown levels: shot limiting and a thermal countdown in the header.
    const hot = TELEMETRY_THRESHOLDS.find((rule) => rule.id === ALERT_IDS.OVERTEMP_WARNING)!.limit + 1;
    power.followSample(hot);
    expect(calls.thermal).toHaveLength(1);
    expect(power.thermalHeader).toEqual(thermalHeader(hot, 0));
    expect(power.thermalHeader.shot_limiting).not.toBe(0);
    expect(calls.thermal[0]).toBe(packThermalHeader(power.thermalHeader));
    power.followSample(hot);
    expect(calls.thermal).toHaveLength(1);
  });

  it("fault injection's reboot time holds until it is withdrawn", () => {
    const { power } = setUp();
    expect(power.simulatedRebootMs).toBe(30);
    power.setRebootMs(5000);
    expect(power.simulatedRebootMs).toBe(5000);
    power.setRebootMs(undefined);
    expect(power.simulatedRebootMs).toBe(30);
  });
});
