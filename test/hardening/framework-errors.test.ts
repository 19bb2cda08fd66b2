/** What Fastify's router refuses before any route runs is answered with the project's problem body, changing nothing. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestSensor, type TestSensor } from '../helpers/test-sensor.js';

let unit: TestSensor;
beforeAll(async () => {
  unit = await createTestSensor();
});
afterAll(() => unit.close());

describe("the router's refusals", () => {
  it('a path parameter over 100 characters: 414 uri-too-long, a problem body', async () => {
    const before = unit.sensor.configs.reported('active');
    const res = await unit.app.inject({
      method: 'PUT',
      url: `/api/v1/sensor/config/${'a'.repeat(101)}`,
      headers: { 'content-type': 'application/json' },
      payload: '1',
    });
    expect(res.statusCode).toBe(414);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json()).toMatchObject({
      type: 'urn:lidar-sensor:problem:uri-too-long',
      status: 414,
      detail: expect.stringContaining('longer than 100 characters'),
    });
    expect(unit.sensor.configs.reported('active')).toEqual(before);
  });

  it('a parameter of exactly 100 characters reaches the route (404 naming it)', async () => {
    const res = await unit.app.inject({ method: 'GET', url: `/api/v1/sensor/config/${'a'.repeat(100)}` });
    expect(res.statusCode).toBe(404);
    expect(res.json().type).toBe('urn:lidar-sensor:problem:not-found');
  });

  it('percent-encoding that does not decode: 400 bad-request, a problem body', async () => {
    const res = await unit.app.inject({ method: 'GET', url: '/api/v1/sensor/config/%zz' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      type: 'urn:lidar-sensor:problem:bad-request',
      detail: expect.stringContaining('not valid percent-encoding'),
    });
  });

  it('a client asking for problem+json gets that type', async () => {
    const res = await unit.app.inject({
      method: 'GET',
      url: `/api/v1/sensor/config/${'a'.repeat(101)}`,
      headers: { accept: 'application/problem+json' },
    });
    expect(res.statusCode).toBe(414);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  });
});
