/** GET/PUT /api/v1/time/ptp/profile: the five profiles, exact names, persistence, no reinit. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PTP_PROFILES } from '../../src/hal/ptp-profiles.js';
import { createTestSensor, type TestSensor } from '../helpers/test-sensor.js';
import { waitFor } from '../helpers/poll.js';

const PROFILE = '/api/v1/time/ptp/profile';

describe('PTP profile', () => {
  let unit: TestSensor;
  beforeEach(async () => {
    unit = await createTestSensor();
  });
  afterEach(async () => {
    await unit.close();
  });

  const put = (payload: string, contentType = 'application/json') =>
    unit.app.inject({ method: 'PUT', url: PROFILE, payload, headers: { 'content-type': contentType } });
  const profile = async () => (await unit.app.inject({ url: PROFILE })).json();
  const initializationId = async () =>
    (await unit.app.inject({ url: '/api/v1/sensor/metadata/sensor_info' })).json().initialization_id;

  it('is "default" on a new unit', async () => {
    const res = await unit.app.inject({ url: PROFILE });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.body).toBe('"default"');
  });

  it.each(PTP_PROFILES)('accepts %j, echoes it, and serves it without a reinit', async (name) => {
    const before = await initializationId();
    const res = await put(JSON.stringify(name));
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.json()).toBe(name);
    expect(await profile()).toBe(name);
    expect((await unit.app.inject({ url: '/api/v1/time/ptp' })).json().profile).toBe(name);
    expect(await initializationId()).toBe(before);
    expect(unit.sensor.run.status).toBe('RUNNING');
  });

  it('treats "" and "default" as the same profile', async () => {
    await put('"gptp"');
    const portUnder = async (name: string) => {
      await put(JSON.stringify(name));
      return (await unit.app.inject({ url: '/api/v1/time/ptp' })).json().port_data_set;
    };
    expect(await portUnder('')).toEqual(await portUnder('default'));
  });

  it('changes the port settings the unit runs (gPTP: P2P, 8 syncs per second)', async () => {
    await put('"gptp"');
    const port = (await unit.app.inject({ url: '/api/v1/time/ptp' })).json().port_data_set;
    expect(port).toMatchObject({ delay_mechanism: 2, log_sync_interval: -3, log_announce_interval: 0 });
  });

  const bad: [string, RegExp][] = [
    ['"GPTP"', /case sensitive.*did you mean "gptp"/],
    ['"Default"', /case sensitive.*did you mean "default"/],
    ['"Automotive-Slave"', /case sensitive/],
    ['"default-relaxed"', /not a PTP profile/],
    ['"gptp-relaxed"', /not a PTP profile/],
    ['"gptp "', /not a PTP profile/],
    ['"ptp"', /not a PTP profile/],
    ['"none"', /not a PTP profile/],
    ['5', /JSON string.*got number/],
    ['null', /got null/],
    ['["gptp"]', /got a list/],
    ['{"profile":"gptp"}', /got object/],
    ['', /got no body/],
    ['gptp', /not valid JSON/],
  ];
  it.each(bad)('refuses %s with a 400 and keeps the profile', async (payload, detail) => {
    await put('"automotive-slave"');
    const res = await put(payload);
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.json().detail).toMatch(detail);
    expect(await profile()).toBe('automotive-slave');
  });

  it('persists at once, across a power cycle', async () => {
    await put('"default-l2-relaxed"');
    unit = await unit.reopen();
    expect(await profile()).toBe('default-l2-relaxed');
    expect((await unit.app.inject({ url: '/api/v1/time/ptp' })).json().profile).toBe('default-l2-relaxed');
  });

  it('is not reset by DELETE /api/v1/sensor/config (it is not part of the configuration)', async () => {
    await put('"gptp"');
    expect((await unit.app.inject({ method: 'DELETE', url: '/api/v1/sensor/config' })).statusCode).toBe(204);
    // The unit answers 503 from the reset's 204 until its restart is done.
    await waitFor(() => unit.sensor.power.reachable(), 10_000, 'the unit back from the restart');
    await unit.sensor.settled();
    expect(await profile()).toBe('gptp');
  });
});
