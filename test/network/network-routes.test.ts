/**
 * The network resources on a simulated unit: the interface model, the static IPv4 override
 * (validation, delayed reset, persistence, DELETE, DELETE of the configuration) and the speed override.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { linkLocalFromMac } from '../../src/model/ipv4.js';
import { ipv6LinkLocalFromMac, macFromSerial } from '../../src/model/mac.js';
import { expectShape } from '../helpers/shape.js';
import { createTestSensor, type TestSensor } from '../helpers/test-sensor.js';
import { waitFor } from '../helpers/poll.js';

const NETWORK = '/api/v1/system/network';
const OVERRIDE = `${NETWORK}/ipv4/override`;
const SPEED = `${NETWORK}/speed_override`;
const SERIAL = '122201000123';
const json = { 'content-type': 'application/json' };

let unit: TestSensor;
afterEach(async () => {
  await unit?.close();
});

const get = async (url: string) => {
  const res = await unit.app.inject({ url });
  expect(res.statusCode, url).toBe(200);
  expect(res.headers['content-type']).toBe('application/json');
  return res.json();
};
const putOverride = (payload: string) => unit.app.inject({ method: 'PUT', url: OVERRIDE, payload, headers: json });
const ipv4Becomes = (addr: string) =>
  waitFor(async () => (await get(`${NETWORK}/ipv4`)).addr === addr, 5000, `ipv4.addr to become ${addr}`);

describe('network model (sim)', () => {
  it('has every field of the spec, derived from the serial number and the listen address', async () => {
    unit = await createTestSensor({ serial: SERIAL });
    const network = await get(NETWORK);
    expectShape(network, {
      carrier: 'boolean',
      duplex: 'string',
      ethaddr: 'string',
      hostname: 'string',
      ipv4: { addr: 'string', link_local: 'string', override: 'string|null' },
      ipv6: { link_local: 'string' },
      speed: 'integer',
      speed_override: 'integer|null',
    });
    const mac = macFromSerial(BigInt(SERIAL));
    expect(network).toEqual({
      carrier: true,
      duplex: 'full',
      ethaddr: mac,
      hostname: `os-${SERIAL}`,
      ipv4: { addr: '127.0.0.1/8', link_local: linkLocalFromMac(mac), override: null },
      ipv6: { link_local: ipv6LinkLocalFromMac(mac) },
      speed: 1000,
      speed_override: null,
    });
    expect(await get(`${NETWORK}/ipv4`)).toEqual(network.ipv4);
    expect(await get(OVERRIDE)).toBeNull();
  });
});

describe('IPv4 override (sim)', () => {
  const good: [string, string][] = [
    ['"192.0.2.100/24"', '192.0.2.100/24'],
    ['"192.0.2.100"', '192.0.2.100/24'], // the unit's loopback address is no prefix to copy: /24
    ['"10.20.30.40/255.255.0.0"', '10.20.30.40/16'],
    ['"198.51.100.9/32"', '198.51.100.9/32'],
  ];
  it.each(good)(
    'PUT %s answers 200 with %s, persisted at once and applied after a short delay',
    async (payload, cidr) => {
      unit = await createTestSensor();
      const res = await putOverride(payload);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.json()).toBe(cidr);
      expect(await get(OVERRIDE)).toBe(cidr);
      await ipv4Becomes(cidr);
      expect((await get(`${NETWORK}/ipv4`)).override).toBe(cidr);
    },
  );

  it('takes the prefix of the current address for a bare address', async () => {
    unit = await createTestSensor();
    expect((await putOverride('"10.1.2.3/16"')).statusCode).toBe(200);
    await ipv4Becomes('10.1.2.3/16');
    expect((await putOverride('"10.1.9.9"')).json()).toBe('10.1.9.9/16');
  });

  const bad = [
    '"224.0.0.1/24"',
    '"255.255.255.255"',
    '"127.0.0.1/8"',
    '"0.0.0.0"',
    '"169.254.10.10/16"',
    '"192.0.2.0/24"',
    '"192.0.2.255/24"',
    '"192.0.2.300"',
    '"192.0.2.1/33"',
    '"fe80::1"',
    '""',
    '3232235876',
    'null',
    '["192.0.2.1"]',
    '{}',
    '',
    'not json',
  ];
  it.each(bad)('refuses %s with a 400 problem and changes nothing', async (payload) => {
    unit = await createTestSensor();
    expect((await putOverride('"192.0.2.10/24"')).statusCode).toBe(200);
    await ipv4Becomes('192.0.2.10/24');
    const res = await putOverride(payload);
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.json()).toMatchObject({ status: 400, title: 'Bad request' });
    expect(res.json().detail).toMatch(/IPv4|JSON/);
    await unit.sensor.network.settled();
    expect(await get(OVERRIDE)).toBe('192.0.2.10/24');
    expect((await get(`${NETWORK}/ipv4`)).addr).toBe('192.0.2.10/24');
  });

  it('answers first and changes the interface afterwards', async () => {
    const events: string[] = [];
    unit = await createTestSensor({
      hal: (defaults) => {
        const apply = defaults.network.applyIpv4Override.bind(defaults.network);
        defaults.network.applyIpv4Override = async (cidr) => {
          events.push(`apply ${cidr}`);
          return apply(cidr);
        };
        return defaults;
      },
    });
    events.length = 0; // the boot applied the persisted state
    const res = await putOverride('"192.0.2.77/24"');
    events.push(`response ${res.statusCode}`);
    await waitFor(() => events.length === 2, 5000, 'the interface reset');
    expect(events).toEqual(['response 200', 'apply 192.0.2.77/24']);
  });

  it('survives a power cycle and is applied at boot', async () => {
    unit = await createTestSensor();
    await putOverride('"192.0.2.123/24"');
    unit = await unit.reopen();
    expect(await get(OVERRIDE)).toBe('192.0.2.123/24');
    expect(await get(`${NETWORK}/ipv4`)).toMatchObject({ addr: '192.0.2.123/24', override: '192.0.2.123/24' });
  });

  it('DELETE returns to dynamic addressing, also after a power cycle', async () => {
    unit = await createTestSensor();
    await putOverride('"192.0.2.123/24"');
    await ipv4Becomes('192.0.2.123/24');
    const res = await unit.app.inject({ method: 'DELETE', url: OVERRIDE });
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect(await get(OVERRIDE)).toBeNull();
    await ipv4Becomes('127.0.0.1/8');
    unit = await unit.reopen();
    expect(await get(OVERRIDE)).toBeNull();
    expect((await unit.app.inject({ method: 'DELETE', url: OVERRIDE })).statusCode).toBe(204);
  });

  it('DELETE /api/v1/sensor/config removes the override; the restart brings the dynamic address back', async () => {
    unit = await createTestSensor();
    await putOverride('"192.0.2.123/24"');
    await ipv4Becomes('192.0.2.123/24');
    expect((await unit.app.inject({ method: 'DELETE', url: '/api/v1/sensor/config' })).statusCode).toBe(204);
    await waitFor(
      async () =>
        (await unit.app.inject({ url: `${NETWORK}/ipv4` })).statusCode === 200 &&
        (await get(`${NETWORK}/ipv4`)).addr === '127.0.0.1/8',
      10_000,
      'the restart',
    );
    expect(await get(OVERRIDE)).toBeNull();
  });
});

describe('speed override', () => {
  it('exists only on T1 models: 409 on every method elsewhere', async () => {
    unit = await createTestSensor({ product: 'OS-1-128' });
    for (const request of [
      { method: 'GET' as const, url: SPEED },
      { method: 'PUT' as const, url: SPEED, payload: '100', headers: json },
      { method: 'DELETE' as const, url: SPEED },
    ]) {
      const res = await unit.app.inject(request);
      expect(res.statusCode, request.method).toBe(409);
      expect(res.json().detail).toMatch(/T1/);
    }
    expect((await get(NETWORK)).speed_override).toBeNull();
  });

  it('on a T1 model takes only the number 100, and DELETE reverts to 1000', async () => {
    unit = await createTestSensor({ product: 'OS-1-128-T1' });
    expect(await get(SPEED)).toBeNull();
    for (const payload of ['1000', '"100"', '10', '100.5', 'null', '[100]', '']) {
      const res = await unit.app.inject({ method: 'PUT', url: SPEED, payload, headers: json });
      expect(res.statusCode, payload).toBe(400);
    }
    expect(
      (await unit.app.inject({ method: 'PUT', url: SPEED, payload: '100', headers: { 'content-type': 'text/plain' } }))
        .statusCode,
    ).toBe(415);
    expect(await get(SPEED)).toBeNull();

    const res = await unit.app.inject({ method: 'PUT', url: SPEED, payload: '100', headers: json });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.body).toBe('100');
    expect(await get(SPEED)).toBe(100);
    await waitFor(async () => (await get(NETWORK)).speed === 100, 5000, 'the link to run at 100 Mbps');
    expect((await get(NETWORK)).speed_override).toBe(100);

    unit = await unit.reopen();
    expect(await get(SPEED)).toBe(100);
    expect((await get(NETWORK)).speed).toBe(100);

    expect((await unit.app.inject({ method: 'DELETE', url: SPEED })).statusCode).toBe(204);
    expect(await get(SPEED)).toBeNull();
    await waitFor(async () => (await get(NETWORK)).speed === 1000, 5000, 'the link to run at 1000 Mbps');
  });
});
