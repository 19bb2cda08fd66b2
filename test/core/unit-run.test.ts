/** The unit's run (src/core/unit-run.ts): status, initialization_id and the bring-up, with a fake HAL. */
import { describe, expect, it } from 'vitest';
import { ConfigState, defaultConfig, type SensorConfig } from '../../src/config/index.js';
import { UnitRun } from '../../src/core/unit-run.js';
import { findProduct } from '../../src/model/index.js';
import { fakeHal, recordingEvents, silentLog } from './part-fakes.js';

const product = findProduct('OS-1-128')!;

function setUp(options: { down?: boolean; failMode?: string; recordedId?: number } = {}) {
  const { hal, calls } = fakeHal({
    failApply: (plan) => `${plan.lidar?.columnsPerFrame}x${plan.lidar?.frameRateHz}` === options.failMode,
  });
  const { events, told } = recordingEvents();
  const configs = new ConfigState(defaultConfig());
  const alerts = { cleared: 0, clearForReinit: () => alerts.cleared++, flags: () => 0x21 };
  const run = new UnitRun({
    hal: hal as never,
    alerts,
    product,
    serialNumber: () => '122201000123',
    configs,
    events,
    log: silentLog,
    shutDown: () => options.down ?? false,
    recording: options.recordedId === undefined ? undefined : ({ initializationId: options.recordedId } as never),
  });
  return { run, calls, told, configs, alerts };
}

const withMode = (lidar_mode: string, operating_mode = 'NORMAL'): SensorConfig =>
  ({ ...defaultConfig(), udp_dest: '127.0.0.1', lidar_mode, operating_mode }) as SensorConfig;

describe('UnitRun', () => {
  it('a bring-up runs the configuration with the current id, makes it active and says so', async () => {
    const { run, calls, told, configs, alerts } = setUp();
    const config = withMode('2048x10');
    await run.bringUp(config);
    expect(calls.applied).toHaveLength(1);
    expect(calls.applied[0]).toMatchObject({ initId: run.initializationId, lidar: { columnsPerFrame: 2048 } });
    expect(calls.applied[0]?.serialNumber).toBe(122201000123n);
    expect(calls.powered[0]).toMatchObject({ config });
    expect(alerts.cleared).toBe(1);
    expect(calls.alertFlags).toEqual([0x21]);
    expect(configs.get('active').lidar_mode).toBe('2048x10');
    expect(run.status).toBe('RUNNING');
    expect(told).toEqual(['status', 'reinit']);
  });

  it('STANDBY runs no stream but powers the unit; a shutdown runs neither and shows ERROR', async () => {
    const standby = setUp();
    await standby.run.bringUp(withMode('1024x10', 'STANDBY'));
    expect(standby.calls.applied).toEqual([null]);
    expect(standby.calls.powered[0]).not.toBeNull();
    expect(standby.run.status).toBe('STANDBY');

    const down = setUp({ down: true });
    await down.run.bringUp(withMode('1024x10'));
    expect(down.calls.applied).toEqual([null]);
    expect(down.calls.powered).toEqual([null]);
    expect(down.run.status).toBe('ERROR');
  });

  it('a reinit gets a new id; a failed one brings the active configuration back with the previous id', async () => {
    const { run, calls, configs } = setUp({ failMode: '512x10' });
    await run.bringUp(withMode('1024x10'));
    const first = run.initializationId;
    await run.reinit(withMode('2048x10'));
    const second = run.initializationId;
    expect(second).not.toBe(first);
    await expect(run.reinit(withMode('512x10'))).rejects.toThrow('the HAL refused the run');
    expect(run.initializationId).toBe(second);
    expect(configs.get('active').lidar_mode).toBe('2048x10');
    expect(calls.applied.at(-1)).toMatchObject({ initId: second, lidar: { columnsPerFrame: 2048 } });
    expect(run.status).toBe('RUNNING');
  });

  it('a replaying unit keeps the recording id across renewals', () => {
    const { run } = setUp({ recordedId: 4242 });
    expect(run.initializationId).toBe(4242);
    run.renew();
    expect(run.initializationId).toBe(4242);
  });

  it('setStatus tells listeners only of a change', () => {
    const { run, told } = setUp();
    run.setStatus('INITIALIZING');
    run.setStatus('STANDBY');
    run.setStatus('STANDBY');
    expect(told).toEqual(['status']);
  });
});
